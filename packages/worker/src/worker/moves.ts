/**
 * Moving a message to the retry or the dead-letter queue: a copy (same body, same key as message id) is sent with a
 * publisher confirm before the original is acked, so a crash or a lost connection in between can duplicate a message
 * but never lose one. A copy the broker refuses leaves the message to the broker (requeued), but only after the retry
 * delay (requeued at once, it would loop as fast as the broker can deliver it), and the worker is not ready until a
 * move succeeds again.
 */
import { ConsumerStatus, type AsyncMessage, type Publisher } from 'rabbitmq-client';
import { bodyBytes } from '../message.js';
import type { DeadLetterReason } from '../topology.js';
import type { WorkerContext } from './context.js';
import type { Delivery } from './delivery.js';
import { deadLetterHeaders, retryHeaders } from './move-headers.js';

export class MessageMover {
  /** Set while the last move failed. */
  failing = false;
  /** Ends the waits of messages to be requeued (on stop). */
  private readonly waits = new Set<() => void>();

  constructor(
    private readonly context: WorkerContext,
    private readonly publisher: Publisher,
  ) {}

  /** A transient failure: back to the main queue after the retry delay, or to the DLQ once the attempts are spent. */
  async retry(delivery: Delivery, lastError: string): Promise<ConsumerStatus> {
    const { config, log, metrics, queues } = this.context;
    if (delivery.attempt >= config.maxAttempts) {
      log.error({ messageKey: delivery.key, attempts: delivery.attempt, lastError }, 'attempts exhausted: dead-lettered');
      return this.deadLetter(delivery, 'max-attempts-exceeded', lastError);
    }
    try {
      await this.republish(queues.retry, delivery, retryHeaders(delivery, lastError), String(config.retryDelayMs));
      this.moved();
      metrics.messagesRetried.inc();
      return ConsumerStatus.ACK;
    } catch (error) {
      return this.notMoved(error, delivery.key, 'retry');
    }
  }

  /** Copies the message to the dead-letter queue; ACK once the broker confirmed it (counted once), else REQUEUE. */
  async deadLetter(delivery: Delivery, reason: DeadLetterReason, detail: string, unknownSessions?: readonly string[]): Promise<ConsumerStatus> {
    const { metrics, queues, tally } = this.context;
    try {
      await this.republish(queues.dlq, delivery, deadLetterHeaders(delivery, reason, detail, unknownSessions));
      this.moved();
      if (tally.counts(delivery)) metrics.deadLettered(reason);
      return ConsumerStatus.ACK;
    } catch (error) {
      return this.notMoved(error, delivery.key, 'dead-letter');
    }
  }

  /** Ends the waits at once (the worker is stopping: the messages are requeued now). */
  endWaits(): void {
    for (const end of this.waits) end();
  }

  private moved(): void {
    if (!this.failing) return;
    this.failing = false;
    this.context.log.info('messages move to the retry and dead-letter queues again: ready');
  }

  private async notMoved(error: unknown, key: string, queue: 'retry' | 'dead-letter'): Promise<ConsumerStatus> {
    const { config, metrics, repeats } = this.context;
    this.failing = true;
    metrics.movesFailed.inc();
    repeats.error(`move-${queue}`, { err: error, messageKey: key }, `could not publish to the ${queue} queue: requeued after ${config.retryDelayMs} ms; not ready`);
    await this.wait(config.retryDelayMs);
    return ConsumerStatus.REQUEUE;
  }

  /** Waits `ms`, or less if the worker starts stopping. */
  private wait(ms: number): Promise<void> {
    if (this.context.stopping.draining) return Promise.resolve();
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.waits.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.waits.add(end);
    });
  }

  /** Sends a copy of the message and waits for the broker's confirm. */
  private republish(queue: string, { message, key }: Delivery, headers: Record<string, unknown>, expiration?: string): Promise<void> {
    return this.publisher.send(
      {
        routingKey: queue,
        durable: true,
        messageId: key,
        headers,
        ...(expiration ? { expiration } : {}),
        ...copiedProperties(message),
      },
      bodyBytes(message.body, message.contentType), // of its own content type: a JSON string keeps its quotes
    );
  }
}

function copiedProperties(message: AsyncMessage): Record<string, string> {
  return {
    ...(message.contentType ? { contentType: message.contentType } : {}),
    ...(message.contentEncoding ? { contentEncoding: message.contentEncoding } : {}),
    ...(message.correlationId ? { correlationId: message.correlationId } : {}),
  };
}
