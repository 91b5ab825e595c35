import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MetricEngine } from '@mce/core';
import { defaultMetricSelection, nativeProvider } from '../../src/index.js';
import { perSession } from '../../src/metrics/deterministic/session-cache.js';
import { byStartTime, mergeByStartTime } from '../../src/metrics/deterministic/session-index.js';
import { Cost, Duration } from '../../src/metrics/deterministic/index.js';
import { SessionBuilder, contextFor, valueOf } from '../support/session-builder.js';
import { referenceSession } from '../support/reference-session.js';

describe('per-session cache', () => {
  it('builds a value once per session and key', () => {
    const s = new SessionBuilder('one').build();
    let builds = 0;
    const build = () => ++builds;
    expect(perSession(s, 'k', build)).toBe(1);
    expect(perSession(s, 'k', build)).toBe(1);
    expect(perSession(s, 'other', build)).toBe(2);
    expect(perSession(new SessionBuilder('two').build(), 'k', build)).toBe(3);
  });

  it('rebuilds, with the same results, a cache the engine released', async () => {
    const s = referenceSession();
    let builds = 0;
    perSession(s, 'probe', () => ++builds);
    expect((await valueOf(Cost, 'Session', s, s)).value).toBeCloseTo(0.009271, 15);
    nativeProvider.releaseSession?.(s);
    perSession(s, 'probe', () => ++builds);
    expect(builds).toBe(2);
    expect((await valueOf(Cost, 'Session', s, s)).value).toBeCloseTo(0.009271, 15);
  });

  it('keeps no session alive once the engine is done with it, even in a loop with no I/O in between', async () => {
    // Sessions made and dropped inside one task (no timer, no I/O between them): anything that keeps a reference —
    // a WeakRef does until the task ends — shows up as heap growth proportional to the sessions computed.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const engine = new MetricEngine();
    engine.registerProvider(nativeProvider);
    const selection = defaultMetricSelection();
    const computeOne = async (i: number) => {
      const b = new SessionBuilder(`loop-${i}`);
      for (let k = 0; k < 400; k++) b.tool(`tool-${k % 7}`, { id: `t${k}`, start: k, end: k + 1 }).result = JSON.stringify({ k, pad: 'x'.repeat(2000) }); // a flat 2 kB string
      const c = await engine.computeLoadedSession(b.build(), { metrics: selection });
      return c.results.length;
    };
    await computeOne(-1);
    gc();
    const before = process.memoryUsage().heapUsed;
    let results = 0;
    for (let i = 0; i < 150; i++) results += await computeOne(i); // 150 sessions × about 1 MB of tool results
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(results).toBeGreaterThan(150 * 400);
    expect(grown).toBeLessThan(40 * 1024 * 1024);
  });
});

describe('start-time ordering', () => {
  const item = (id: string, startTime: number) => ({ id, startTime });
  it('is a stable sort, NaN times last', () => {
    const items = [item('a', 5), item('b', 1), item('c', 5), item('d', Number.NaN), item('e', 1)];
    expect(byStartTime(items).map((x) => x.id)).toEqual(['b', 'e', 'a', 'c', 'd']);
    expect(items.map((x) => x.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
  it('merges two ordered lists like a stable sort of their concatenation', () => {
    const a = [item('a1', 1), item('a2', 3), item('a3', 3)];
    const b = [item('b1', 0), item('b2', 3), item('b3', 9)];
    expect(mergeByStartTime(a, b).map((x) => x.id)).toEqual(['b1', 'a1', 'a2', 'a3', 'b2', 'b3']);
    expect(mergeByStartTime(a, b)).toEqual(byStartTime([...a, ...b]));
    const unordered = [item('u1', 4), item('u2', 2)];
    expect(mergeByStartTime(a, unordered).map((x) => x.id)).toEqual(['a1', 'u2', 'a2', 'a3', 'u1']);
  });
});

describe('computeBatch', () => {
  it('returns one outcome per element, in order, an element\'s error as its own outcome', async () => {
    const b = new SessionBuilder();
    const ok = b.tool('x', { id: 'ok', start: 0, end: 5 });
    const backwards = b.tool('x', { id: 'back', start: 9, end: 3 });
    const ok2 = b.tool('x', { id: 'ok2', start: 1, end: 2.5 });
    const ctx = contextFor(b.session, 'ToolCall');
    const out = await Duration.computeBatch([ok, backwards, ok2], ctx);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatchObject({ value: 5 });
    expect(out[1]).toBeInstanceOf(Error);
    expect((out[1] as Error).message).toBe('ToolCall back: ends before it starts (start 9, end 3)');
    expect(out[2]).toMatchObject({ value: 1.5 });
  });

  it('gives the same outcomes as compute, element by element', async () => {
    const s = referenceSession();
    const ctx = contextFor(s, 'AgentCall');
    const batch = await Cost.computeBatch(s.agentCalls, ctx);
    expect(batch).toEqual(s.agentCalls.map((a) => Cost.compute(a, ctx)));
  });

  it('rejects a level the metric is not defined at', async () => {
    const s = referenceSession();
    await expect(
      Duration.computeBatch([s], contextFor(s, 'Session')),
    ).resolves.toHaveLength(1);
    await expect(
      Cost.computeBatch(s.toolCalls, contextFor(s, 'ToolCall')),
    ).rejects.toThrow('Cost is not defined at the ToolCall level');
  });
});
