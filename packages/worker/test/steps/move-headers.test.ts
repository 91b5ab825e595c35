/** The headers of the retry and dead-letter copies. */
import type { AsyncMessage } from 'rabbitmq-client';
import { describe, expect, it } from 'vitest';
import { HEADER } from '@mce/worker';
import type { Delivery } from '../../src/worker/delivery.js';
import { MAX_HEADER_TEXT, deadLetterHeaders, listWithin, ownHeaders, retryHeaders } from '../../src/worker/move-headers.js';

const delivery = (headers: Record<string, unknown>, attempt = 1): Delivery => ({
  message: { headers } as AsyncMessage,
  key: 'k',
  attempt,
  fresh: attempt === 1,
  connection: 1,
});

describe('move headers', () => {
  it('counts the attempt up for the retry queue and cuts the error to one frame', () => {
    expect(retryHeaders(delivery({ trace: 't' }, 2), 'e'.repeat(5000))).toEqual({
      trace: 't',
      [HEADER.attempts]: 3,
      [HEADER.lastError]: 'e'.repeat(MAX_HEADER_TEXT),
    });
  });

  it('says why, after how many attempts and which unknown sessions for the dead-letter queue', () => {
    expect(deadLetterHeaders(delivery({}, 2), 'unknown-session', 'unknown session: a, b', ['a', 'b'])).toEqual({
      [HEADER.reason]: 'unknown-session',
      [HEADER.attempts]: 2,
      [HEADER.lastError]: 'unknown session: a, b',
      [HEADER.unknownSessions]: 'a,b',
    });
  });

  it("drops the broker's death headers, and a replayed message's earlier x-mce headers", () => {
    expect(ownHeaders({ headers: { 'x-death': [], 'x-first-death-queue': 'q', [HEADER.attempts]: 2, own: 1 } })).toEqual({ [HEADER.attempts]: 2, own: 1 });
    expect(ownHeaders({ headers: { [HEADER.reason]: 'unknown-session', [HEADER.attempts]: 5, own: 1 } })).toEqual({ own: 1 });
  });

  it('cuts a long list, naming how many it left out', () => {
    expect(listWithin(['aa', 'bb', 'cc'], 5)).toBe('aa,bb,… (+1 more)');
    expect(listWithin(['aa', 'bb'], 5)).toBe('aa,bb');
  });
});
