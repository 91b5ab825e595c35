/** `mce enqueue`: publishes session ids to the worker's queue, each message confirmed by the broker. */
import { MceError } from '@mce/core';
import { randomUUID } from 'node:crypto';
import { Connection } from 'rabbitmq-client';
import { redactUrl } from '@mce/core';
import { topology } from './topology.js';

export interface EnqueueOptions {
  /** Session ids per message: 1 sends `{"session_id"}` messages, more sends `{"session_ids": […]}`. Default 1. */
  perMessage?: number;
  /** Messages awaiting their confirm at once. Default 500. */
  window?: number;
  /** The main queue's arguments (the worker's `queue_arguments`), declared with it. */
  queueArguments?: Readonly<Record<string, string | number | boolean>>;
  /** How long to wait for the broker before giving up. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * A stable run: each message's id is `<runKey>:<session id>` instead of a fresh one, so the worker computes the
   * session under the same run id each time it is enqueued and a re-run overwrites its results (the receiver's
   * re-evaluation of a session that got more spans). One session per message only.
   */
  runKey?: string;
}

/** The broker could not be reached (nothing was published). */
export class BrokerUnreachableError extends MceError {
  readonly kind = 'unavailable' as const;
  override readonly name = 'BrokerUnreachableError';
}

/** `amqp://user:secret@host/vhost` → `amqp://user:***@host/vhost`: core's redactUrl, under the name this package exports. */
export const withoutCredentials = redactUrl;

export interface EnqueueResult {
  messages: number;
  sessions: number;
}

/**
 * Declares the (durable) queue and publishes persistent messages with publisher confirms; resolves once the broker
 * confirmed every one. Each message gets a fresh message_id, so enqueuing a session again is a new run (unless
 * `runKey` makes it the same run).
 */
export async function enqueueSessions(
  amqpUrl: string,
  queue: string,
  sessionIds: readonly string[],
  options: EnqueueOptions = {},
): Promise<EnqueueResult> {
  const perMessage = options.perMessage ?? 1;
  if (!Number.isInteger(perMessage) || perMessage < 1) throw new Error(`perMessage must be an integer ≥ 1 (got ${perMessage})`);
  if (options.runKey !== undefined && perMessage !== 1) throw new Error('runKey takes one session per message (perMessage 1)');
  const messageId = (body: unknown) => (options.runKey === undefined ? randomUUID() : `${options.runKey}:${(body as { session_id: string }).session_id}`);
  const bodies: unknown[] = [];
  for (let i = 0; i < sessionIds.length; i += perMessage) {
    const chunk = sessionIds.slice(i, i + perMessage);
    bodies.push(perMessage === 1 ? { session_id: chunk[0] } : { session_ids: chunk });
  }
  const connection = new Connection({ url: amqpUrl, connectionName: 'mce-enqueue', retryLow: 200, retryHigh: 2000 });
  // Without a listener a connection error would be thrown as an unhandled 'error' event; the last one explains a
  // broker that cannot be reached.
  let lastError: unknown;
  connection.on('error', (error: unknown) => (lastError = error));
  try {
    await connection.onConnect(options.connectTimeoutMs ?? 10_000);
  } catch (error) {
    const reason = lastError instanceof Error ? lastError.message : error instanceof Error ? error.message : String(error);
    throw new BrokerUnreachableError(`cannot reach the broker at ${withoutCredentials(amqpUrl)}: ${reason}`);
  }
  try {
    const publisher = connection.createPublisher({ confirm: true, maxAttempts: 3, queues: [topology(queue, options.queueArguments).main] });
    const window = Math.max(1, options.window ?? 500);
    for (let i = 0; i < bodies.length; i += window) {
      await Promise.all(
        bodies.slice(i, i + window).map((body) => publisher.send({ routingKey: queue, durable: true, messageId: messageId(body) }, body)),
      );
    }
    await publisher.close();
  } finally {
    await connection.close();
  }
  return { messages: bodies.length, sessions: sessionIds.length };
}
