/** Decoding a delivery: its key, which attempt it is, whether it is fresh, and its sessions or what is wrong. */
import type { AsyncMessage } from 'rabbitmq-client';
import { describe, expect, it } from 'vitest';
import { HEADER } from '@mce/worker';
import { attemptOf, decodeDelivery } from '../../src/worker/delivery.js';

const message = (fields: Partial<AsyncMessage>): AsyncMessage => ({ body: { session_id: 's1' }, redelivered: false, headers: {}, ...fields }) as AsyncMessage;

describe('decodeDelivery', () => {
  it('gives a fresh first attempt its message id as key and its sessions, stamped with its connection', () => {
    expect(decodeDelivery(message({ messageId: 'm-1' }), 3)).toMatchObject({
      ok: true,
      sessionIds: ['s1'],
      delivery: { key: 'm-1', attempt: 1, fresh: true, connection: 3 },
    });
  });

  it('takes a redelivery and a copy back from the retry queue for not fresh', () => {
    expect(decodeDelivery(message({ messageId: 'm', redelivered: true }), 1).delivery.fresh).toBe(false);
    const retried = decodeDelivery(message({ messageId: 'm', headers: { [HEADER.attempts]: 2 } }), 1).delivery;
    expect([retried.attempt, retried.fresh]).toEqual([2, false]);
  });

  it('says what is wrong with a malformed body, keeping the delivery to dead-letter it', () => {
    const decoded = decodeDelivery(message({ messageId: 'bad', body: 'not json' }), 1);
    expect(decoded).toMatchObject({ ok: false, error: 'body is not JSON: not json', delivery: { key: 'bad' } });
  });
});

describe('attemptOf', () => {
  it('reads the attempts header as a number, bigint or text; 1 when missing, unreadable or replayed from the DLQ', () => {
    expect(attemptOf({ headers: { [HEADER.attempts]: 3 } })).toBe(3);
    expect(attemptOf({ headers: { [HEADER.attempts]: 4n } })).toBe(4);
    expect(attemptOf({ headers: { [HEADER.attempts]: '2' } })).toBe(2);
    expect(attemptOf({ headers: { [HEADER.attempts]: 'two' } })).toBe(1);
    expect(attemptOf({ headers: {} })).toBe(1);
    expect(attemptOf({ headers: { [HEADER.attempts]: 5, [HEADER.reason]: 'max-attempts-exceeded' } })).toBe(1);
  });
});
