/**
 * The ragas provider through the engine: results with the summed usage in the seed's evaluation fields, a failure a
 * failed record (never a stored 0), a replay from the record/replay cache with the recorded usage and no judge call,
 * and the calls of many elements made concurrently (the library's calls are not serialised).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricEngine, MetricRegistry } from '@mce/core';
import { MemoryCacheManager } from '@mce/provider-native';
import { ragasMetrics } from '@mce/provider-ragas';
import { startScriptedLLMServer, type ScriptedLLMServer, type ScriptedStep } from '../../../test-support/scripted-llm-server.mjs';
import { judgeOn } from '../../../test-support/judge-env.js';
import { ragSession } from '../../../test-support/library-session.js';

let server: ScriptedLLMServer;
let engine: MetricEngine;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  const judge = judgeOn(server.url, 'gpt-4o-mini', { MCE_JUDGE_CONCURRENCY: '8' });
  const registry = new MetricRegistry();
  registry.registerProvider({ name: 'ragas', description: 'ragas', version: '0', metrics: () => ragasMetrics(() => judge) });
  engine = new MetricEngine({}, registry);
});
afterAll(() => server.close());

const verify = (latencyMs = 0): ScriptedStep => ({ toolCalls: [{ name: 'verify', arguments: { reason: 'useful', verdict: 1 } }], latencyMs });

describe('ragas metrics in the engine', () => {
  it('a result carries the usage; a session without tool results is a failed record, not a 0', async () => {
    server.setScript(() => verify());
    const run = await engine.computeLoadedSession(ragSession('ok'), { metrics: { Session: ['ragas:ContextPrecision'] } });
    expect(run.results.map((r) => [r.name, r.result, r.evaluationModel, r.evaluationTotalTokenCount, r.evaluationCost])).toEqual([
      ['ContextPrecision', 1, 'gpt-4o-mini', 120, expect.closeTo(140e-6, 12)],
    ]);
    const bare = await engine.computeLoadedSession(ragSession('bare', { tools: false }), { metrics: { Session: ['ragas:ContextPrecision'] } });
    expect(bare.results).toEqual([]);
    expect(bare.failed).toEqual([
      { name: 'ContextPrecision', level: 'Session', measures: 'bare', error: expect.stringContaining('has no retrieval context') },
    ]);
  });

  it('replays a recorded result with its usage and makes no judge call', async () => {
    const cache = new MemoryCacheManager();
    engine.setCacheManager(cache);
    try {
      server.setScript(() => verify());
      const first = await engine.computeLoadedSession(ragSession('c'), { metrics: { Session: ['ragas:ContextPrecision'] } });
      expect(server.requests).toHaveLength(1);
      server.setScript([]);
      const again = await engine.computeLoadedSession(ragSession('c'), { metrics: { Session: ['ragas:ContextPrecision'] } });
      expect(server.requests).toHaveLength(0);
      const fields = (r: (typeof first.results)[number]) => [r.result, r.evaluationModel, r.evaluationPromptTokenCount, r.evaluationCompletionTokenCount, r.evaluationCost];
      expect(again.results.map(fields)).toEqual(first.results.map(fields));
    } finally {
      engine.setCacheManager(undefined);
    }
  });

  it('computes many elements with the library\'s calls in flight together', async () => {
    server.setScript(() => verify(50));
    const session = ragSession('many');
    const started = Date.now();
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      engine.computeLoadedSession({ ...session, id: `many-${i}` }, { metrics: { Session: ['ragas:ContextPrecision'] } })));
    expect(runs.flatMap((r) => r.results)).toHaveLength(8);
    expect(server.maxConcurrent).toBeGreaterThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(8 * 50);
  });
});
