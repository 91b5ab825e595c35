/** Gathering messages into batches of batch_size sessions, held during a pause, released at once on stop. */
import { describe, expect, it } from 'vitest';
import type { PendingMessage } from '../../src/worker/delivery.js';
import { BatchGatherer, batchesOf } from '../../src/worker/gather.js';
import { FailurePause } from '../../src/worker/pause.js';

const entry = (id: string, sessions = 1) => ({ key: id, sessionIds: Array.from({ length: sessions }, (_, i) => `${id}-${i}`) }) as unknown as PendingMessage;

describe('batchesOf', () => {
  it('ends a batch once it holds batch_size sessions, never splitting a message', () => {
    const batches = batchesOf([entry('a', 2), entry('b', 1), entry('c', 5), entry('d', 1)], 3);
    expect(batches.map((batch) => batch.map((e) => e.key))).toEqual([['a', 'b'], ['c'], ['d']]);
  });
});

describe('BatchGatherer', () => {
  it('hands a batch over as soon as it holds batch_size sessions', () => {
    const runs: string[][] = [];
    const gatherer = new BatchGatherer({ batchSize: 2, batchMaxWaitMs: 60_000 }, new FailurePause(100), { draining: false }, async (batch) => {
      runs.push(batch.map((e) => e.key));
    });
    gatherer.add(entry('a'));
    expect(runs).toEqual([]);
    gatherer.add(entry('b'));
    expect(runs).toEqual([['a', 'b']]);
    expect(gatherer.waiting).toBe(0);
  });

  it('holds what gathers during a pause, and lets it go at once when the worker stops', () => {
    const runs: string[][] = [];
    const pause = new FailurePause(60_000);
    const stopping = { draining: false };
    const gatherer = new BatchGatherer({ batchSize: 2, batchMaxWaitMs: 10 }, pause, stopping, async (batch) => {
      runs.push(batch.map((e) => e.key));
    });
    pause.begin();
    for (const id of ['a', 'b', 'c', 'd', 'e']) gatherer.add(entry(id));
    expect(runs).toEqual([]);
    expect(gatherer.waiting).toBe(5);
    stopping.draining = true;
    gatherer.dispatch();
    expect(runs).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    gatherer.stopTimer();
  });
});
