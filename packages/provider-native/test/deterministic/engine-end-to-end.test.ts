import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MetricEngine, type ResultRecord, type SessionComputation } from '@mce/core';
import { DETERMINISTIC_METRICS, NATIVE_PROVIDER_REF, defaultMetricSelection, nativeProvider } from '../../src/index.js';
import { referenceSession } from '../support/reference-session.js';

function value(out: SessionComputation, name: string, measures: string): number | undefined {
  return out.results.find((r: ResultRecord) => r.name === name && r.measures === measures)?.result;
}

/** Checks the whole reference session's results: the numbers are worked out in reference-session.ts. */
function expectReferenceResults(out: SessionComputation): void {
  expect(out.failed).toEqual([]);
  expect(out.skipped).toEqual([]);
  // Session 17 + MASCall 10 + 3 AgentCalls × 11 + 3 LLMCalls × 5 + 3 ToolCalls × 1
  expect(out.results).toHaveLength(78);
  expect(value(out, 'Duration', 'session-1')).toBe(995);
  expect(value(out, 'Duration', 'l2')).toBe(300);
  expect(value(out, 'MeanLLMCallDuration', 'session-1')).toBe(150);
  expect(value(out, 'P95LLMCallDuration', 'session-1')).toBe(300);
  expect(value(out, 'MeanToolCallDuration', 'session-1')).toBeCloseTo(164 / 3, 12);
  expect(value(out, 'Cost', 'session-1')).toBeCloseTo(0.009271, 15);
  expect(value(out, 'Cost', 'b1')).toBeCloseTo(0.00575, 15);
  expect(value(out, 'PromptTokens', 'mas1')).toBe(3100);
  expect(value(out, 'ToolErrorRate', 'a1')).toBe(100);
  expect(value(out, 'AgentToAgentInteractions', 'session-1')).toBe(2);
  expect(value(out, 'WorkflowEfficiency', 'session-1')).toBe(1);
  const cost = out.results.find((r) => r.name === 'Cost' && r.level === 'LLMCall' && r.measures === 'l2');
  expect(cost).toMatchObject({ provider: 'mce', unit: 'USD', evaluationModel: null, evaluationCost: 0 });
  expect(cost?.reasoning).toContain('priced like gpt-4o');
}

describe('deterministic catalog through the MetricEngine', () => {
  it('asyncio: computes the default selection over the reference session', async () => {
    const engine = new MetricEngine({ strategy: 'asyncio' });
    engine.registerProvider(nativeProvider);
    const out = await engine.computeLoadedSession(referenceSession(), { metrics: defaultMetricSelection() });
    expectReferenceResults(out);
    await engine.close();
  });

  it('reports a skipped WorkflowEfficiency and a failing metric as data, not a crash', async () => {
    const engine = new MetricEngine({ strategy: 'asyncio' });
    engine.registerProvider(nativeProvider);
    const session = referenceSession();
    session.agentCalls = session.agentCalls.filter((a) => a.agentName === 'A');
    session.llmCalls[0]!.usage.inputTokens = Number.NaN;
    const out = await engine.computeLoadedSession(session, { metrics: { Session: ['WorkflowEfficiency', 'PromptTokens', 'LLMCallCount'] } });
    expect(out.skipped).toEqual([
      { name: 'WorkflowEfficiency', level: 'Session', measures: 'session-1', reason: 'no transition between agents in this session' },
    ]);
    expect(out.failed).toEqual([
      { name: 'PromptTokens', level: 'Session', measures: 'session-1', error: 'LLMCall l1: usage.inputTokens is not a non-negative number (NaN)' },
    ]);
    expect(out.results.map((r) => [r.name, r.result])).toEqual([['LLMCallCount', 3]]);
  });

  // Worker threads import the built package (dist), as in production; `npm test` builds before running the suite.
  const built = existsSync(new URL('../../dist/index.js', import.meta.url));
  describe.skipIf(!built)('thread strategy (loads metrics by their portable refs)', () => {
    const engines: MetricEngine[] = [];
    afterAll(async () => Promise.all(engines.map((e) => e.close())));

    it('gives the same results with per-metric refs', async () => {
      const engine = new MetricEngine({ strategy: 'thread', maxWorkers: 2 });
      engines.push(engine);
      for (const metric of DETERMINISTIC_METRICS) engine.registerMetric(metric, metric.portable);
      expectReferenceResults(await engine.computeLoadedSession(referenceSession(), { metrics: defaultMetricSelection() }));
    });

    it('gives the same results with the provider ref', async () => {
      const engine = new MetricEngine({ strategy: 'thread', maxWorkers: 2 });
      engines.push(engine);
      engine.registerProvider(nativeProvider, NATIVE_PROVIDER_REF);
      expectReferenceResults(await engine.computeLoadedSession(referenceSession(), { metrics: defaultMetricSelection() }));
    });
  });
});
