/** The headers of the copies the worker sends to the retry and dead-letter queues. */
import type { AsyncMessage } from 'rabbitmq-client';
import { HEADER, type DeadLetterReason } from '../topology.js';
import { replayed, type Delivery } from './delivery.js';

/** Longest text put in a header of ours: a message's headers must fit in one AMQP frame. */
export const MAX_HEADER_TEXT = 1000;

/** The copy for the retry queue: attempt one more, with the error that sent it there. */
export function retryHeaders(delivery: Delivery, lastError: string): Record<string, unknown> {
  return {
    ...ownHeaders(delivery.message),
    [HEADER.attempts]: delivery.attempt + 1,
    [HEADER.lastError]: lastError.slice(0, MAX_HEADER_TEXT),
  };
}

/** The copy for the dead-letter queue: why, after how many attempts, and (unknown sessions) which ones. */
export function deadLetterHeaders(delivery: Delivery, reason: DeadLetterReason, detail: string, unknownSessions?: readonly string[]): Record<string, unknown> {
  return {
    ...ownHeaders(delivery.message),
    [HEADER.reason]: reason,
    [HEADER.attempts]: delivery.attempt,
    [HEADER.lastError]: detail.slice(0, MAX_HEADER_TEXT),
    ...(unknownSessions ? { [HEADER.unknownSessions]: listWithin(unknownSessions, MAX_HEADER_TEXT) } : {}),
  };
}

/**
 * The message's headers without the ones the broker maintains when it dead-letters (it adds them again), and, for a
 * replayed message, without the ones of its earlier life (attempts, reason, last error, unknown sessions).
 */
export function ownHeaders(message: Pick<AsyncMessage, 'headers'>): Record<string, unknown> {
  const fresh = replayed(message);
  return Object.fromEntries(
    Object.entries(message.headers ?? {}).filter(
      ([name]) => !/^x-(death|first-death-|last-death-)/.test(name) && !(fresh && name.startsWith('x-mce-')),
    ),
  );
}

/** `items` joined with commas, cut to about `max` characters with the number left out named. */
export function listWithin(items: readonly string[], max: number): string {
  let text = '';
  for (let i = 0; i < items.length; i++) {
    const next = i === 0 ? items[i] : `${text},${items[i]}`;
    if ((next as string).length > max) return `${text ? `${text},` : ''}… (+${items.length - i} more)`;
    text = next as string;
  }
  return text;
}
