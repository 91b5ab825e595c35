import { describe, expect, it } from 'vitest';
import type { CacheManager, CachedComputation, LLMCall } from '@mce/core';
import { MetricEngine, skip } from '@mce/core';
import { metric } from './helpers/metrics.js';
import { sampleSession } from './helpers/sessions.js';

class MemoryCache implements CacheManager {
  readonly entries = new Map<string, CachedComputation>();
  gets = 0;
  constructor(
    readonly read = true,
    readonly write = true,
  ) {}
  async get(key: string): Promise<CachedComputation | undefined> {
    this.gets++;
    return this.entries.get(key);
  }
  async set(key: string, value: CachedComputation): Promise<void> {
    this.entries.set(key, value);
  }
}

/** A judge-like metric: one "call" per LLM call, usage reported; l3 skipped; fails when told to. */
function judge(calls: string[], failOn?: string) {
  return metric(
    'Judge',
    ['LLMCall'],
    (call: LLMCall, ctx) => {
      calls.push(call.id);
      if (call.id === failOn) throw new Error('judge unreachable');
      if (call.id.endsWith('l3')) return skip('no answer to judge');
      return {
        value: call.usage.inputTokens / 400,
        reasoning: `judged ${call.id}`,
        details: { model: ctx.options.model },
        evaluation: { model: 'gpt-4o-mini', promptTokens: 50, completionTokens: 5, totalTokens: 55, costUsd: 0.00001 },
      };
    },
    {
      nature: 'llm-judged',
      cacheKey: (call: LLMCall, ctx) => `Judge|${String(ctx.options.model)}|${call.usage.inputTokens}`,
    },
  );
}

describe('record/replay cache', () => {
  it('an outcome whose getter throws is that element\'s failure with the cache on too, not a crash; the others are recorded', async () => {
    const odd = metric(
      'Odd',
      ['LLMCall'],
      (call: LLMCall) =>
        call.id.endsWith('l1')
          ? ({
              get value(): number {
                throw new Error('getter boom');
              },
            } as never)
          : { value: 1 },
      { nature: 'llm-judged', cacheKey: (call: LLMCall) => `Odd|${call.id}` },
    );
    const engine = new MetricEngine();
    engine.registerMetric(odd);
    const cache = new MemoryCache();
    engine.setCacheManager(cache);
    const run = await engine.computeLoadedSession(sampleSession());
    expect(run.failed).toEqual([{ name: 'Odd', level: 'LLMCall', measures: 's1-l1', error: 'invalid outcome: reading it threw: getter boom' }]);
    expect(run.results.map((r) => r.measures)).toEqual(['s1-l2', 's1-l3']);
    expect([...cache.entries.keys()]).toEqual(['Odd|s1-l2', 'Odd|s1-l3']);
  });

  it('records fresh values, then replays them with their evaluation usage and details.replayed', async () => {
    const calls: string[] = [];
    const engine = new MetricEngine();
    engine.registerMetric(judge(calls));
    const cache = new MemoryCache();
    engine.setCacheManager(cache);
    const options = { runId: 'r', metricOptions: { Judge: { model: 'gpt-4o-mini' } } };

    const first = await engine.computeLoadedSession(sampleSession(), options);
    expect(calls).toEqual(['s1-l1', 's1-l2', 's1-l3']);
    expect([...cache.entries.keys()]).toEqual(['Judge|gpt-4o-mini|100', 'Judge|gpt-4o-mini|200']);
    expect(cache.entries.get('Judge|gpt-4o-mini|200')).toMatchObject({
      value: 0.5,
      reasoning: 'judged s1-l2',
      details: { model: 'gpt-4o-mini' },
      evaluation: { model: 'gpt-4o-mini', promptTokens: 50, completionTokens: 5, totalTokens: 55, costUsd: 0.00001 },
    });
    expect(first.results.map((r) => r.details)).toEqual([{ model: 'gpt-4o-mini' }, { model: 'gpt-4o-mini' }]);

    const second = await engine.computeLoadedSession(sampleSession(), options);
    // l3 was skipped, so it is not cached and is asked again; l1 and l2 are replayed.
    expect(calls).toEqual(['s1-l1', 's1-l2', 's1-l3', 's1-l3']);
    expect(second.results.map((r) => [r.measures, r.result, r.reasoning, r.details])).toEqual([
      ['s1-l1', 0.25, 'judged s1-l1', { model: 'gpt-4o-mini', replayed: true }],
      ['s1-l2', 0.5, 'judged s1-l2', { model: 'gpt-4o-mini', replayed: true }],
    ]);
    expect(second.results[0]).toMatchObject({
      evaluationModel: 'gpt-4o-mini',
      evaluationPromptTokenCount: 50,
      evaluationCompletionTokenCount: 5,
      evaluationTotalTokenCount: 55,
      evaluationCost: 0.00001,
    });
    expect(second.results.map((r) => r.id)).toEqual(first.results.map((r) => r.id));
    expect(second.skipped).toEqual([{ name: 'Judge', level: 'LLMCall', measures: 's1-l3', reason: 'no answer to judge' }]);
  });

  it('replays a cached value of 0 (a hit, not a miss) without computing it again', async () => {
    const calls: string[] = [];
    const engine = new MetricEngine();
    engine.registerMetric(judge(calls));
    const cache = new MemoryCache();
    cache.entries.set('Judge|undefined|100', { value: 0, reasoning: 'judged 0 before', recordedAt: '2026-01-01T00:00:00.000Z' });
    engine.setCacheManager(cache);
    const run = await engine.computeLoadedSession(sampleSession());
    // Only l2 (not cached) and l3 (skipped) are asked; l1's 0 is replayed.
    expect(calls).toEqual(['s1-l2', 's1-l3']);
    expect(run.results.map((r) => [r.measures, r.result, r.reasoning, r.details])).toEqual([
      ['s1-l1', 0, 'judged 0 before', { replayed: true }],
      ['s1-l2', 0.5, 'judged s1-l2', { model: undefined }],
    ]);
  });

  it('a different key (other options) misses the cache', async () => {
    const calls: string[] = [];
    const engine = new MetricEngine();
    engine.registerMetric(judge(calls));
    engine.setCacheManager(new MemoryCache());
    await engine.computeLoadedSession(sampleSession(), { metricOptions: { Judge: { model: 'a' } } });
    await engine.computeLoadedSession(sampleSession(), { metricOptions: { Judge: { model: 'b' } } });
    expect(calls).toHaveLength(6);
  });

  it('does not cache failures, and honours read=false / write=false', async () => {
    const calls: string[] = [];
    const engine = new MetricEngine();
    engine.registerMetric(judge(calls, 's1-l1'));
    const writeOnly = new MemoryCache(false, true);
    engine.setCacheManager(writeOnly);
    const run = await engine.computeLoadedSession(sampleSession());
    expect(run.failed).toEqual([{ name: 'Judge', level: 'LLMCall', measures: 's1-l1', error: 'judge unreachable' }]);
    expect([...writeOnly.entries.keys()]).toEqual(['Judge|undefined|200']);
    await engine.computeLoadedSession(sampleSession());
    expect(writeOnly.gets).toBe(0);
    expect(calls).toHaveLength(6);

    const readOnly = new MemoryCache(true, false);
    readOnly.entries.set('Judge|undefined|100', { value: 0.9, recordedAt: '2026-01-01T00:00:00.000Z' });
    engine.setCacheManager(readOnly);
    const replayed = await engine.computeLoadedSession(sampleSession());
    expect(replayed.results.map((r) => [r.measures, r.result, r.details, r.evaluationModel])).toEqual([
      ['s1-l1', 0.9, { replayed: true }, null],
      ['s1-l2', 0.5, { model: undefined }, 'gpt-4o-mini'],
    ]);
    expect(readOnly.entries.size).toBe(1);
  });

  it('metrics without cacheKey are always computed; a failing cache read means compute', async () => {
    const calls: string[] = [];
    const engine = new MetricEngine();
    engine.registerMetric(metric('Plain', ['Session'], () => (calls.push('plain'), { value: 1 })));
    engine.registerMetric(judge(calls));
    engine.setCacheManager({
      read: true,
      write: true,
      get: async () => {
        throw new Error('cache down');
      },
      set: async () => {
        throw new Error('cache down');
      },
    });
    const run = await engine.computeLoadedSession(sampleSession());
    expect(calls).toEqual(['plain', 's1-l1', 's1-l2', 's1-l3']);
    expect(run.results.map((r) => r.result)).toEqual([1, 0.25, 0.5]);
    expect(run.failed).toEqual([]);
  });

  it('a cache that throws (instead of rejecting) while another task still runs costs the replay, not the run', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const calls: string[] = [];
      const engine = new MetricEngine();
      engine.registerMetric(judge(calls)); // quick: its records are written to the cache at once
      engine.registerMetric(metric('Slow', ['Session'], async () => (await new Promise((r) => setTimeout(r, 50)), { value: 7 })));
      engine.setCacheManager({
        read: false,
        write: true,
        get: () => Promise.resolve(undefined),
        set: () => {
          throw new Error('database is locked');
        },
      });
      const run = await engine.computeLoadedSession(sampleSession());
      await new Promise((r) => setTimeout(r, 20)); // an unhandled rejection is reported on a later turn
      expect(run.results.map((r) => `${r.name}=${r.result}`).sort()).toEqual(['Judge=0.25', 'Judge=0.5', 'Slow=7']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
