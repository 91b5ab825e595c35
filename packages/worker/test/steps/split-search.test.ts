/**
 * The search for the messages at fault in a failed batch, with a processor that refuses given messages (a plain
 * function: the search's own rules, without a broker or a store; worker-isolate.test.ts runs it through both).
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '../../src/worker/process-batch.js';
import { halves, searchFaults } from '../../src/worker/split-search.js';

interface Entry {
  id: string;
  attempt: number;
}

const entries = (n: number, attempt = 1): Entry[] => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, attempt }));

/** A search whose processor refuses any part holding one of `atFault` (or every part: `down`). */
async function search(batch: Entry[], refuse: (part: Entry[]) => Error | undefined) {
  const calls: string[][] = [];
  const stored: string[] = [];
  const firsts: boolean[] = [];
  const split = await searchFaults(batch, {
    async process(part): Promise<Run> {
      calls.push(part.map((entry) => entry.id));
      const error = refuse(part);
      return error ? { ok: false, error } : { ok: true, items: [], outcome: { items: [] }, seconds: 0 };
    },
    async stored(part, _run, first) {
      stored.push(...part.map((entry) => entry.id));
      firsts.push(first);
    },
    isOutage: (error) => error instanceof Error && error.message === 'outage',
  });
  return { split, calls, stored, firsts, failed: split.failed.map(({ entry }) => entry.id) };
}

const refusing = (...ids: string[]) => (part: Entry[]) => (part.some((entry) => ids.includes(entry.id)) ? new Error('refused') : undefined);

describe('searchFaults', () => {
  it('finds one message at fault in 8, storing the others, in at most 2·⌈log₂ 8⌉ calls', async () => {
    const { split, calls, stored, failed, firsts } = await search(entries(8), refusing('m5'));
    expect(failed).toEqual(['m5']);
    expect(split).toMatchObject({ stored: 7, outage: false });
    expect(stored.sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm6', 'm7']);
    expect(calls.length).toBeLessThanOrEqual(6);
    expect(firsts[0]).toBe(true);
    expect(firsts.slice(1).every((first) => !first)).toBe(true);
  });

  it('takes a batch whose parts all fail for an outage after as many levels as its attempts', async () => {
    const fresh = await search(entries(8), () => new Error('refused'));
    expect(fresh.calls).toEqual([['m0', 'm1', 'm2', 'm3'], ['m4', 'm5', 'm6', 'm7']]);
    expect(fresh.split).toMatchObject({ stored: 0, outage: true });
    expect(fresh.failed).toHaveLength(8);
    const tried = await search(entries(8, 2), () => new Error('refused'));
    expect(tried.calls).toHaveLength(2 + 4);
  });

  it('ends the search at a part failing on an outage: that part and the ones not tried fail', async () => {
    const { split, calls, failed } = await search(entries(4), (part) => (part[0]?.id === 'm0' ? new Error('refused') : new Error('outage')));
    expect(calls).toEqual([['m0', 'm1'], ['m2', 'm3']]);
    expect(split.outage).toBe(true);
    expect(failed).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('finds messages at fault in both halves once a part without them is stored', async () => {
    const { failed, split } = await search(entries(8, 2), refusing('m1', 'm6'));
    expect(failed.sort()).toEqual(['m1', 'm6']);
    expect(split.stored).toBe(6);
  });
});

describe('halves', () => {
  it('cuts a part in two, the first the larger', () => {
    expect(halves([1, 2, 3])).toEqual([[1, 2], [3]]);
  });
});
