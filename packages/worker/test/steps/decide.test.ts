/** Ack, retry or dead-letter: what becomes of a stored message from its sessions' outcomes. */
import { describe, expect, it } from 'vitest';
import type { BatchItemOutcome } from '@mce/worker';
import { decide, outcomesPerMessage } from '../../src/worker/decide.js';

const item = (sessionId: string, status: BatchItemOutcome['status'], error?: string): BatchItemOutcome =>
  ({ sessionId, status, ...(error ? { error } : {}) }) as BatchItemOutcome;

describe('decide', () => {
  it('acks a message whose sessions were all stored', () => {
    expect(decide([item('a', 'ok'), item('b', 'ok')])).toEqual({ action: 'ack' });
  });

  it('retries one stored incompletely, with the error or a message naming the session', () => {
    expect(decide([item('a', 'ok'), item('b', 'transient-failure', 'judge down')])).toEqual({ action: 'retry', sessionId: 'b', error: 'judge down' });
    expect(decide([item('b', 'transient-failure')])).toEqual({ action: 'retry', sessionId: 'b', error: 'session b: transient metric failure' });
  });

  it('dead-letters one with an unknown session, even when another failed transiently', () => {
    expect(decide([item('a', 'transient-failure', 'x'), item('b', 'unknown-session'), item('c', 'unknown-session')])).toEqual({
      action: 'dead-letter',
      unknownSessions: ['b', 'c'],
    });
  });
});

describe('outcomesPerMessage', () => {
  it("gives each message the outcomes of its own sessions, in order", () => {
    const outcomes = [item('a', 'ok'), item('b', 'ok'), item('c', 'unknown-session')];
    expect(outcomesPerMessage([{ sessionIds: ['a', 'b'] }, { sessionIds: ['c'] }], outcomes).map((list) => list.map((o) => o.sessionId))).toEqual([['a', 'b'], ['c']]);
  });
});
