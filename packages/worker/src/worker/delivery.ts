/**
 * Decoding and validating a delivered message: its body (message.ts), its stable key, which attempt it is, and
 * whether it is fresh (for counting it once: outcome-tally.ts).
 */
import type { AsyncMessage, ConsumerStatus } from 'rabbitmq-client';
import { messageKey, parseMessage } from '../message.js';
import type { DeliveryStamp } from '../outcome-tally.js';
import { HEADER } from '../topology.js';

/** A delivered message, as it arrived. */
export interface Delivery extends DeliveryStamp {
  message: AsyncMessage;
  /** This delivery is attempt number … (1 for a fresh message). */
  attempt: number;
}

/** A delivered message waiting for its batch; `settle` tells the AMQP client to ack or requeue it. */
export interface PendingMessage extends Delivery {
  sessionIds: string[];
  settle: (status: ConsumerStatus) => void;
}

export type Decoded = { delivery: Delivery } & ({ ok: true; sessionIds: string[] } | { ok: false; error: string });

/** The delivery of `message`, which came on connection number `connection`, and its session ids or what is wrong. */
export function decodeDelivery(message: AsyncMessage, connection: number): Decoded {
  const attempt = attemptOf(message);
  const delivery: Delivery = {
    message,
    key: messageKey(message.messageId, message.body),
    attempt,
    fresh: !message.redelivered && attempt === 1,
    connection,
  };
  const parsed = parseMessage(message.body);
  return parsed.ok ? { delivery, ok: true, sessionIds: parsed.sessionIds } : { delivery, ok: false, error: parsed.error };
}

/**
 * A message moved back from the dead-letter queue by an operator: it carries the reason this worker gave when it
 * dead-lettered it (the worker itself never sends such a message to the main queue). It starts afresh.
 */
export function replayed(message: Pick<AsyncMessage, 'headers'>): boolean {
  return message.headers?.[HEADER.reason] !== undefined;
}

/** The attempt this delivery is: the retry header, else 1 (also for a message replayed from the DLQ). */
export function attemptOf(message: Pick<AsyncMessage, 'headers'>): number {
  if (replayed(message)) return 1;
  const raw: unknown = message.headers?.[HEADER.attempts];
  const value = typeof raw === 'bigint' ? Number(raw) : typeof raw === 'string' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 1;
}
