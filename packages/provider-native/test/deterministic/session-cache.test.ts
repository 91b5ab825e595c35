import { describe, expect, it } from 'vitest';
import { perSession } from '../../src/metrics/deterministic/session-cache.js';
import { byStartTime, mergeByStartTime } from '../../src/metrics/deterministic/session-index.js';
import { Cost } from '../../src/metrics/deterministic/index.js';
import { SessionBuilder, valueOf } from '../support/session-builder.js';
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

  it('rebuilds, with the same results, a cache evicted by 64 later sessions', async () => {
    const s = referenceSession();
    let builds = 0;
    perSession(s, 'probe', () => ++builds);
    expect((await valueOf(Cost, 'Session', s, s)).value).toBeCloseTo(0.009271, 15);
    for (let i = 0; i < 64; i++) {
      const other = new SessionBuilder(`filler-${i}`).build();
      perSession(other, 'probe', () => 0);
    }
    perSession(s, 'probe', () => ++builds);
    expect(builds).toBe(2);
    expect((await valueOf(Cost, 'Session', s, s)).value).toBeCloseTo(0.009271, 15);
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
