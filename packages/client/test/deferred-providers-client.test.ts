/**
 * Through MCEClient (what `mce serve` and the worker compute with): a discovered provider package with a catalogue is
 * registered from it, its metrics standing in for its code, and its code takes their place when a computation selects
 * one of them; the packages no computation selected stay as their catalogue says.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSchema, type Session } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore } from '../src/index.js';
import { startScriptedLLMServer, type ScriptedLLMServer, type ScriptedStep } from '../../../test-support/scripted-llm-server.mjs';
import { pointJudgeAt, resetJudgeEnv } from '../../../test-support/judge-env.js';

const weather = SessionSchema.parse(
  JSON.parse(readFileSync(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')),
) as Session;

/** Ragas' faithfulness prompts, answered: two statements, one supported. */
function faithfulness(body: Record<string, unknown>): ScriptedStep {
  const tool = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
  if (tool === 'extract_statements') return { toolCalls: [{ name: tool, arguments: { statements: ['It is 14 °C.', 'It is sunny.'] } }] };
  if (tool === 'judge_statements') {
    return { toolCalls: [{ name: tool, arguments: { faithfulness: [{ statement: 'It is 14 °C.', verdict: 1, reason: 'said' }, { statement: 'It is sunny.', verdict: 0, reason: 'cloudy' }] } }] };
  }
  return { status: 400, error: { message: `unexpected tool ${tool}` } };
}

describe('MCEClient with discovered provider packages', () => {
  let server: ScriptedLLMServer;
  beforeAll(async () => {
    server = await startScriptedLLMServer();
    server.setScript(faithfulness);
    pointJudgeAt(server.url, { MCE_JUDGE_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    resetJudgeEnv();
    await server.close();
  });

  it('computes ragas:Faithfulness with the package imported then, and leaves the others as catalogued', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-deferred-'));
    await using client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    const ctx = { session: weather, level: 'Session' as const, options: {}, results: { get: () => undefined, all: () => [] } };
    const standIn = (key: string) => () => client.engine.registry.get(key)?.metric.compute(weather, ctx);
    expect(standIn('ragas:Faithfulness')).toThrow(/provider package "@mce\/provider-ragas" \(.*\) was not loaded before its metric was computed/);
    expect(client.metricDefinitions().map((d) => d.id)).toEqual(expect.arrayContaining(['ragas:Faithfulness', 'opik:Moderation']));

    const [computation] = await client.compute([weather], { metrics: ['ragas:Faithfulness'], recursive: false });
    expect(computation?.failed).toEqual([]);
    expect(computation?.results.map((r) => [r.provider, r.name, r.level, r.result])).toEqual([['ragas', 'Faithfulness', 'Session', 0.5]]);
    expect(server.requests.length).toBe(2);
    expect(standIn('opik:Moderation')).toThrow(/provider package "@mce\/provider-opik" \(.*\) was not loaded before its metric was computed/);
  });
});
