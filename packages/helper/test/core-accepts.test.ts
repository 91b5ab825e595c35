/**
 * A provider written only against @mce/helper is what core takes: the assignments below fail to type-check when the
 * helper's shapes drift from core's contracts, and core's engine computes it. (Installed as a package and discovered,
 * it is tested end to end by packages/mce/test/pack-install.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { MetricEngine, type Metric, type MetricProvider } from '@mce/core';
import { defineMetric, defineProvider, skip } from '../src/index.js';
import { sampleSession } from '../../core/test/helpers/sessions.js';

const callCount = defineMetric({
  name: 'CallCount',
  levels: ['Session'],
  unit: 'count',
  description: 'LLM and tool calls',
  compute: (s) => {
    const session = s as unknown as { llmCalls: unknown[]; toolCalls: unknown[] };
    const n = session.llmCalls.length + session.toolCalls.length;
    return n === 0 ? skip('no calls') : { value: n, reasoning: `${n} calls` };
  },
});
const provider: MetricProvider = defineProvider({ name: 'acme', version: '1.0.0', description: 'Acme', metrics: [callCount] });
const asCoreMetric: Metric = callCount;

describe('@mce/helper against core', () => {
  it('core registers and computes a helper-built provider; the provider name is filled into each metric', async () => {
    expect(provider.metrics().map((m) => [m.metadata.provider, m.metadata.name, m.metadata.nature])).toEqual([['acme', 'CallCount', 'deterministic']]);
    expect(asCoreMetric.metadata.provider).toBe('');
    const engine = new MetricEngine({ maxWorkers: 1 });
    engine.registerProvider(provider);
    const session = sampleSession('a');
    const [run] = await engine.computeLoadedSessions([session], { metrics: { Session: ['acme:CallCount'] } });
    expect(run?.results.map((r) => [r.name, r.result, r.reasoning])).toEqual([['CallCount', session.llmCalls.length + session.toolCalls.length, `${session.llmCalls.length + session.toolCalls.length} calls`]]);
  });

  it('refuses a bad metric or provider name, no levels, and a metric defined twice', () => {
    const compute = () => ({ value: 1 });
    expect(() => defineMetric({ name: '1bad', levels: ['Session'], description: '', compute })).toThrow('metric name "1bad"');
    expect(() => defineMetric({ name: 'Ok', levels: [], description: '', compute })).toThrow('metric Ok: levels is empty');
    const ok = defineMetric({ name: 'Ok', levels: ['Session'], description: '', compute });
    expect(() => defineProvider({ name: 'a b', version: '1', description: '', metrics: [ok] })).toThrow('provider name "a b"');
    expect(() => defineProvider({ name: 'p', version: '1', description: '', metrics: [ok, ok] })).toThrow('metric Ok is defined twice');
  });
});
