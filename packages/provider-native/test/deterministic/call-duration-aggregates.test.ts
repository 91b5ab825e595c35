import { describe, expect, it } from 'vitest';
import {
  MeanLLMCallDuration,
  MeanToolCallDuration,
  P95LLMCallDuration,
  mean,
  nearestRankPercentile,
} from '../../src/metrics/deterministic/index.js';
import { SessionBuilder, lookupOf, resultOf, run, valueOf } from '../support/session-builder.js';
import { referenceSession } from '../support/reference-session.js';

const s = referenceSession();
/** Duration results as the engine would have produced them for the reference session. */
const durations = lookupOf([
  resultOf('Duration', 'LLMCall', 'l1', 100),
  resultOf('Duration', 'LLMCall', 'l2', 300),
  resultOf('Duration', 'LLMCall', 'l3', 50),
  resultOf('Duration', 'ToolCall', 't1', 100),
  resultOf('Duration', 'ToolCall', 't2', 60),
  resultOf('Duration', 'ToolCall', 't3', 4),
  resultOf('Duration', 'AgentCall', 'a1', 490),
  resultOf('Duration', 'Session', 'session-1', 995),
]);

describe('nearest-rank percentile', () => {
  it('takes the value at rank ⌈p·n/100⌉ of the sorted list', () => {
    expect(nearestRankPercentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95)).toBe(19);
    expect(nearestRankPercentile([100, 10, 90, 20, 80, 30, 70, 40, 60, 50], 95)).toBe(100);
    expect(nearestRankPercentile(Array.from({ length: 100 }, (_, i) => i + 1), 95)).toBe(95);
    expect(nearestRankPercentile([7], 95)).toBe(7);
    expect(nearestRankPercentile(Array.from({ length: 60 }, (_, i) => i + 1), 95)).toBe(57);
    // rank ⌈99.9·1000/100⌉ = 999 ((99.9 / 100)·1000 is 999.0000000000001 in floating point)
    expect(nearestRankPercentile(Array.from({ length: 1000 }, (_, i) => i + 1), 99.9)).toBe(999);
    expect(nearestRankPercentile([3, 1, 2], 0)).toBe(1);
    // Rounds the rank up, never to the nearest: 0.95·13 = 12.35 → rank 13; 0.95·33 = 31.35 → rank 32.
    expect(nearestRankPercentile(Array.from({ length: 13 }, (_, i) => i + 1), 95)).toBe(13);
    expect(nearestRankPercentile(Array.from({ length: 33 }, (_, i) => i + 1), 95)).toBe(32);
  });
  it('mean', () => {
    expect(mean([100, 60, 4])).toBeCloseTo(164 / 3, 12);
  });
});

describe('call-duration aggregates', () => {
  it('declare themselves aggregates of Duration', () => {
    for (const m of [MeanLLMCallDuration, P95LLMCallDuration, MeanToolCallDuration]) {
      expect(m.metadata.nature).toBe('aggregate');
      expect(m.metadata.dependsOn).toEqual(['Duration']);
      expect(m.metadata.levels).toEqual(['Session']);
    }
    expect(P95LLMCallDuration.metadata.description).toContain('nearest-rank');
  });

  it('MeanLLMCallDuration = (100 + 300 + 50) / 3 = 150', async () => {
    const r = await valueOf(MeanLLMCallDuration, 'Session', s, s, durations);
    expect(r.value).toBe(150);
    expect(r.reasoning).toBe('Mean of the Duration of 3 LLM calls: 150 ms.');
    expect(r.details).toEqual({ calls: 3 });
  });

  it('P95LLMCallDuration of [50, 100, 300] is 300 (rank ⌈2.85⌉ = 3)', async () => {
    const r = await valueOf(P95LLMCallDuration, 'Session', s, s, durations);
    expect(r.value).toBe(300);
    expect(r.details).toEqual({ calls: 3, method: 'nearest-rank' });
  });

  it('P95LLMCallDuration of 20 calls lasting 1..20 ms is 19', async () => {
    const b = new SessionBuilder();
    const results = Array.from({ length: 20 }, (_, i) => {
      const call = b.llm({ start: 0, end: i + 1 });
      return resultOf('Duration', 'LLMCall', call.id, i + 1);
    });
    expect((await valueOf(P95LLMCallDuration, 'Session', b.session, b.session, lookupOf(results))).value).toBe(19);
  });

  it('MeanToolCallDuration = (100 + 60 + 4) / 3', async () => {
    expect((await valueOf(MeanToolCallDuration, 'Session', s, s, durations)).value).toBeCloseTo(164 / 3, 12);
  });

  it('read the Duration results, never recompute from the calls', async () => {
    const other = lookupOf([resultOf('Duration', 'LLMCall', 'l1', 1000), resultOf('Duration', 'LLMCall', 'l2', 2000), resultOf('Duration', 'LLMCall', 'l3', 3000)]);
    expect((await valueOf(MeanLLMCallDuration, 'Session', s, s, other)).value).toBe(2000);
  });

  it('read the values through valuesAt when the lookup has it', async () => {
    const asked: string[] = [];
    const fast = { ...durations, valuesAt: (name: string, level: string) => (asked.push(`${name}@${level}`), [10, 20, 60]) };
    expect((await valueOf(MeanLLMCallDuration, 'Session', s, s, fast)).value).toBe(30);
    expect((await valueOf(P95LLMCallDuration, 'Session', s, s, fast)).value).toBe(60);
    expect((await valueOf(MeanToolCallDuration, 'Session', s, s, fast)).value).toBe(30);
    expect(asked).toEqual(['Duration@LLMCall', 'Duration@LLMCall', 'Duration@ToolCall']);
  });

  it('fail when a call has no Duration result: the statistic of the others is not the session\'s', async () => {
    const partial = lookupOf([resultOf('Duration', 'LLMCall', 'l1', 100), resultOf('Duration', 'LLMCall', 'l2', 300)]);
    const ctx = { session: s, level: 'Session' as const, options: {}, results: partial };
    expect(() => MeanLLMCallDuration.compute(s, ctx)).toThrow(
      "Duration failed for 1 of the session's 3 LLM calls (see their errors): the mean of the others is not the session's",
    );
    expect(() => P95LLMCallDuration.compute(s, ctx)).toThrow(
      "Duration failed for 1 of the session's 3 LLM calls (see their errors): the 95th percentile (nearest rank) of the others is not the session's",
    );
    const whole = await valueOf(MeanLLMCallDuration, 'Session', s, s, lookupOf([...['l1', 'l2', 'l3'].map((id, i) => resultOf('Duration', 'LLMCall', id, 100 * (i + 1)))]));
    expect([whole.value, whole.details, whole.reasoning]).toEqual([200, { calls: 3 }, 'Mean of the Duration of 3 LLM calls: 200 ms.']);
  });

  it('are skipped when the session has no such call', async () => {
    const empty = new SessionBuilder().build();
    expect(await run(MeanLLMCallDuration, 'Session', empty, empty)).toEqual({ skipped: 'the session has no LLM calls' });
    expect(await run(P95LLMCallDuration, 'Session', empty, empty)).toEqual({ skipped: 'the session has no LLM calls' });
    expect(await run(MeanToolCallDuration, 'Session', empty, empty)).toEqual({ skipped: 'the session has no tool calls' });
  });

  it('fail when calls exist but none has a Duration result (each failed, or none was computed), saying both', () => {
    expect(() => MeanToolCallDuration.compute(s, { session: s, level: 'Session', options: {}, results: lookupOf() })).toThrow(
      "no Duration result for any of the session's 3 ToolCall(s): Duration failed for each of them (see their errors), or was not computed at ToolCall",
    );
  });
});
