/**
 * The queue consumer. Messages are gathered into batches (by session count, or after a maximum wait) and handed to
 * `processBatch`; a message is acked only after the batch's flush committed (or that of the part it was processed again
 * in, when its batch failed and was split), or after it was safely (publisher confirm) moved to the retry or
 * dead-letter queue. Anything not acked is redelivered by the broker, and because run
 * ids derive from the message, reprocessing overwrites instead of duplicating.
 *
 * Each delivery is a pending handler of the AMQP client's Consumer that settles when its batch is done, so the
 * client acks/nacks on the channel the message came from, re-creates channel, topology and consumer after a lost
 * connection, and on close() stops consuming and waits for the pending handlers (= the in-flight batches).
 */
import { redactUrl } from '@mce/core';
import { errorText, toError } from '@mce/core';
import { Connection, ConsumerStatus, type AsyncMessage, type Consumer, type Publisher } from 'rabbitmq-client';
import type { WorkerConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { isOutage } from './failure.js';
import { bodyBytes, messageKey, parseMessage, runIdFor } from './message.js';
import { WorkerMetrics } from './metrics.js';
import type { BatchItem, BatchOutcome, BatchProcessor } from './processor.js';
import { HEADER, queueNames, topology, type DeadLetterReason, type QueueNames } from './topology.js';

export interface WorkerOptions {
  config: WorkerConfig;
  processor: BatchProcessor;
  logger?: Logger;
  metrics?: WorkerMetrics;
  /** Shown in the broker's connection list. */
  connectionName?: string;
  /**
   * A failure retrying cannot mend (the broker refused the credentials): called once, for the worker to stop (exit 2)
   * rather than retry forever with only /readyz to show it.
   */
  onFatal?: (reason: string) => void;
}

/** A delivered message waiting for its batch. */
interface PendingMessage {
  message: AsyncMessage;
  key: string;
  sessionIds: string[];
  /** This delivery is attempt number … (1 for a fresh message). */
  attempt: number;
  settle: (status: ConsumerStatus) => void;
}

/** A processBatch call that succeeded (its outcome matched the sessions it was given), with what it was given. */
interface Stored {
  ok: true;
  items: BatchItem[];
  outcome: BatchOutcome;
  seconds: number;
}

/** What one processBatch call gave. */
type Run = Stored | { ok: false; error: unknown };

/** The search for the messages at fault in a failed batch (splitFailed). */
interface Split {
  /** Messages that failed in the smallest part they were tried in, with that part's error. */
  failed: { entry: PendingMessage; error: unknown }[];
  /** Messages stored meanwhile. */
  stored: number;
  /** No part was stored, or a part failed on a connection error: the store is taken to be down. */
  outage: boolean;
  /** The end of the pause the batch's failure began. */
  pausedUntil: number;
}

/** Longest text put in a header of ours: a message's headers must fit in one AMQP frame. */
const MAX_HEADER_TEXT = 1000;

export class MceWorker {
  readonly metrics: WorkerMetrics;
  readonly queues: QueueNames;
  private readonly config: WorkerConfig;
  private readonly processor: BatchProcessor;
  private readonly log: Logger;
  private readonly connection: Connection;
  private readonly publisher: Publisher;
  private readonly consumer: Consumer;
  private pending: PendingMessage[] = [];
  private pendingSessions = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private draining = false;
  private closing: Promise<void> | undefined;
  private readonly firstReady: Promise<void>;
  /** Set while the queues could not be declared, or the last move to the retry / dead-letter queue failed. */
  private topologyFailing = false;
  private moveFailing = false;
  /**
   * After a failed batch (the store or another service the processor needs is down) no new batch starts before
   * this time (epoch ms), and /readyz says not ready: a worker that kept taking batches would spend every queued
   * message's attempts within seconds and dead-letter the whole queue during a short outage. Unacked messages wait
   * (prefetch bounds them). The pause doubles with each failed batch in a row, up to 8 × retry_delay_ms. It ends
   * early when a part of a split batch is stored (the failure was the batch's own, see splitFailed).
   */
  private resumeAt = 0;
  private failedBatchesInARow = 0;
  /** Ends the pauses of messages waiting to be requeued (on close). */
  private readonly pauses = new Set<() => void>();

  constructor(options: WorkerOptions) {
    this.config = options.config;
    this.processor = options.processor;
    this.log = options.logger ?? createLogger();
    this.metrics = options.metrics ?? new WorkerMetrics();
    this.queues = queueNames(this.config.queue);
    const declarations = topology(this.config.queue, this.config.queueArguments);

    this.connection = new Connection({
      url: this.config.amqpUrl,
      connectionName: options.connectionName ?? 'mce-worker',
      retryLow: Math.max(1, Math.min(1000, this.config.reconnectMaxDelayMs)),
      retryHigh: Math.max(1, this.config.reconnectMaxDelayMs),
    });
    this.connection.on('error', (error: unknown) => {
      if ((error as { code?: string }).code === 'ACCESS_REFUSED') {
        const reason = `the broker at ${redactUrl(this.config.amqpUrl)} refused the user name or password (MCE_AMQP_URL / RABBITMQ_URL / amqp_url)`;
        this.log.error({ err: error }, `${reason}: not retrying`);
        options.onFatal?.(reason);
        return;
      }
      this.log.warn({ err: error }, 'broker connection error');
    });
    this.connection.on('connection', () => {
      this.metrics.connections.inc();
      this.log.info({ queue: this.queues.main }, 'connected to the broker');
      // Retry and dead-letter queues exist from the start, not only from the first failure.
      void this.declareTopology(declarations);
    });

    this.publisher = this.connection.createPublisher({
      confirm: true,
      maxAttempts: 3,
      queues: [declarations.retry, declarations.dlq],
    });
    this.consumer = this.connection.createConsumer(
      {
        queue: declarations.main.queue,
        queueOptions: { durable: true, ...(declarations.main.arguments ? { arguments: declarations.main.arguments } : {}) },
        qos: { prefetchCount: this.config.prefetch },
        concurrency: this.config.prefetch,
        requeue: true,
      },
      (message) => this.onMessage(message),
    );
    this.consumer.on('error', (error: unknown) => this.log.warn({ err: error }, 'consumer error'));
    this.consumer.on('ready', () => this.log.info({ queue: this.queues.main, prefetch: this.config.prefetch }, 'consuming'));
    this.firstReady = new Promise((resolve) => this.consumer.once('ready', () => resolve()));
  }

  /** Resolves the first time the consumer is consuming. */
  ready(): Promise<void> {
    return this.firstReady;
  }

  /** Connected, consuming, and able to move messages to the retry and dead-letter queues (what /readyz reports). */
  isReady(): boolean {
    return (
      !this.closing &&
      this.connection.ready &&
      this.consumer.consumerTag !== '' &&
      !this.topologyFailing &&
      !this.moveFailing &&
      Date.now() >= this.resumeAt
    );
  }

  /**
   * Graceful stop: stop consuming, process the messages already received (at once, without waiting for a full
   * batch), ack them, close. Messages that arrive after that are requeued for the next consumer.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.log.info({ pendingMessages: this.pending.length, inFlightBatches: this.inFlight.size }, 'stopping: finishing in-flight batches');
      this.draining = true;
      for (const end of this.pauses) end();
      this.dispatch();
      if (this.connection.ready) {
        await this.consumer.close();
        await Promise.allSettled([...this.inFlight]);
        await this.publisher.close();
        await this.connection.close();
      } else {
        // Broker unreachable: nothing can be acked (the broker redelivers), and waiting for a channel would only
        // stall until the acquire timeout. Let running batches end, close the connection first, then the rest.
        await Promise.allSettled([...this.inFlight]);
        await this.connection.close();
        await this.consumer.close();
        await this.publisher.close();
      }
      this.log.info('stopped');
    })();
    return this.closing;
  }

  /** Drops the connection at once; unacked messages go back to the queue. For a missed shutdown deadline. */
  destroy(): void {
    clearTimeout(this.batchTimer);
    this.connection.unsafeDestroy();
  }

  private async declareTopology(declarations: ReturnType<typeof topology>): Promise<void> {
    if (this.closing) return;
    try {
      for (const declaration of [declarations.main, declarations.retry, declarations.dlq]) {
        await this.connection.queueDeclare(declaration);
      }
      if (this.topologyFailing) this.log.info('queues declared: ready');
      this.topologyFailing = false;
    } catch (error) {
      this.topologyFailing = true;
      this.log.error({ err: error }, `could not declare the queues: not ready; trying again in ${this.config.retryDelayMs} ms`);
      // Until someone fixes the conflicting queue: readiness then comes back without a reconnect.
      if (!this.closing) setTimeout(() => void this.declareTopology(declarations), this.config.retryDelayMs).unref();
    }
  }

  private onMessage(message: AsyncMessage): Promise<ConsumerStatus> {
    // Sent before the broker saw our cancel (or buffered by the client until a handler slot freed): back to the
    // queue for the next consumer, instead of being processed with nobody left to ack it.
    if (this.draining) {
      this.log.debug({ messageId: message.messageId }, 'delivered while stopping: requeued for the next consumer');
      return Promise.resolve(ConsumerStatus.REQUEUE);
    }
    const parsed = parseMessage(message.body);
    const key = messageKey(message.messageId, message.body);
    const attempt = attemptOf(message);
    if (!parsed.ok) {
      this.log.error({ messageKey: key, error: parsed.error }, 'malformed message: dead-lettered');
      return this.deadLetter(message, key, 'malformed-message', parsed.error, attempt);
    }
    return new Promise((settle) => {
      this.pending.push({ message, key, sessionIds: parsed.sessionIds, attempt, settle });
      this.pendingSessions += parsed.sessionIds.length;
      if (this.pendingSessions >= this.config.batchSize) this.dispatch();
      else this.batchTimer ??= setTimeout(() => this.dispatch(), this.config.batchMaxWaitMs);
    });
  }

  /**
   * Hands the gathered messages to processBatch, in batches of `batch_size` sessions. Usually they are one batch; but
   * what gathered during a pause (up to `prefetch` messages: after an outage, the backlog coming back from the retry
   * queue) leaves as several, not as one call larger than the store is sized for.
   */
  private dispatch(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.pending.length === 0) return;
    const wait = this.resumeAt - Date.now();
    if (wait > 0 && !this.draining) {
      this.batchTimer = setTimeout(() => this.dispatch(), wait); // paused after a failed batch
      return;
    }
    const pending = this.pending;
    this.pending = [];
    this.pendingSessions = 0;
    for (const batch of batchesOf(pending, this.config.batchSize)) {
      const run = this.runBatch(batch).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  /**
   * Messages back from the retry queue travel in batches with the others: after an outage every message that was in
   * flight comes back retried, and one call each would drain that backlog at the single-message rate. A message at
   * fault among them is found when its batch fails (splitFailed), by a search that goes deeper the more often the
   * batch's messages failed before.
   */
  private async runBatch(batch: PendingMessage[]): Promise<void> {
    const run = await this.process(batch);
    if (run.ok) {
      await this.settle(batch, run);
      return;
    }
    this.metrics.batchesFailed.inc();
    const pauseMs = this.pauseAfterFailure();
    if (batch.length > 1 && !isOutage(run.error)) {
      await this.splitFailed(batch, run.error, pauseMs);
      return;
    }
    this.log.warn(
      { err: run.error, sessions: sessionCount(batch), messages: batch.length, pauseMs },
      'batch failed: messages go to the retry queue; no new batch during the pause',
    );
    await Promise.all(batch.map((entry) => this.retry(entry, errorText(toError(run.error)))));
  }

  /** One processBatch call for the messages of `batch`, all their sessions in order. */
  private async process(batch: readonly PendingMessage[]): Promise<Run> {
    const items: BatchItem[] = batch.flatMap((entry) =>
      entry.sessionIds.map((sessionId) => ({ sessionId, runId: runIdFor(entry.key, sessionId) })),
    );
    const started = performance.now();
    try {
      const outcome = await this.processor.processBatch(items);
      if (outcome.items.length !== items.length) {
        throw new Error(`processBatch returned ${outcome.items.length} outcomes for ${items.length} sessions`);
      }
      return { ok: true, items, outcome, seconds: (performance.now() - started) / 1000 };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /**
   * A batch of several messages failed, not on a connection error: a message of it may be at fault (a session the
   * store refuses) rather than the store. Its messages are processed again at once, in parts (see search): what is
   * stored is acked now, what fails goes to the retry queue. When no part is stored, or a part fails on a connection
   * error, the store is likely down: the messages not stored go to the retry queue and the pause begun by the failure
   * holds. While this runs no new batch starts (the pause); it ends once a part was stored.
   */
  private async splitFailed(batch: PendingMessage[], error: unknown, pauseMs: number): Promise<void> {
    this.metrics.batchesSplit.inc();
    this.log.warn(
      { err: error, sessions: sessionCount(batch), messages: batch.length },
      'batch failed: processing its messages again in parts to find the ones at fault',
    );
    const split: Split = { failed: [], stored: 0, outage: false, pausedUntil: this.resumeAt };
    await this.search(batch, split);
    if (split.outage) {
      // After a part was stored (which ended the pause) the store failed: a new run of failures begins.
      const pause = split.stored > 0 ? this.pauseAfterFailure() : pauseMs;
      this.log.warn(
        { err: split.failed[0]?.error, messages: split.failed.length, storedMessages: split.stored, pauseMs: pause },
        'batch failed: messages go to the retry queue; no new batch during the pause',
      );
    } else if (split.failed.length > 0) {
      this.log.warn(
        { messageKeys: split.failed.map(({ entry }) => entry.key), storedMessages: split.stored },
        'batch failed because of some of its messages: they go to the retry queue, the others were stored',
      );
    } else {
      this.log.info({ storedMessages: split.stored }, 'batch failed, but its parts were stored when processed again');
    }
    await Promise.all(split.failed.map(({ entry, error: cause }) => this.retry(entry, errorText(toError(cause)))));
  }

  /**
   * Processes the parts of `batch`, which failed as a whole, level by level: its halves, then the halves of every
   * part that failed, and so on. A part that is stored is settled (the first one ends the pause after the failure);
   * from then on the store is known to work, and every failing part is split again down to the single messages at
   * fault: at most 2·⌈log₂ n⌉ calls per message at fault in a batch of n, and never more than 2n − 2 (every part).
   *
   * Until a part is stored, the failure may be the store's: the search goes only as many levels deep as the batch's
   * most-tried message has attempts (halves for fresh messages, quarters once they failed before, …), then takes it
   * for an outage — at most 2^(a+1) − 2 calls for attempt a, and again never more than 2n − 2 — and every message
   * goes to `split.failed` with `split.outage` set. k messages at fault spread over every half (a pair split between
   * the halves) look like an outage at first; each attempt they spend doubles the parts tried, so by the attempt a
   * with 2^a > k a part without them is stored and the search finds them: their neighbours are dragged to the
   * dead-letter queue only when k ≥ 2^max_attempts. A part failing on an outage (a service unavailable: failure.ts) ends the search as one.
   */
  private async search(batch: PendingMessage[], split: Split): Promise<void> {
    const blindLevels = Math.max(...batch.map((entry) => entry.attempt));
    let failing: PendingMessage[][] = [batch];
    for (let level = 1; failing.length > 0; level++) {
      const parts = failing.flatMap(halves);
      const failed: { part: PendingMessage[]; error: unknown }[] = [];
      for (const [i, part] of parts.entries()) {
        const run = await this.process(part);
        if (run.ok) {
          if (split.stored === 0) this.endPause(split.pausedUntil);
          split.stored += part.length;
          await this.settle(part, run);
        } else if (isOutage(run.error)) {
          split.outage = true;
          for (const rest of [...failed.map((failure) => failure.part), ...parts.slice(i)]) {
            for (const entry of rest) split.failed.push({ entry, error: run.error });
          }
          return;
        } else {
          failed.push({ part, error: run.error });
        }
      }
      const outage = split.stored === 0 && level >= blindLevels;
      failing = [];
      for (const { part, error } of failed) {
        if (part.length > 1 && !outage) failing.push(part);
        else for (const entry of part) split.failed.push({ entry, error });
      }
      if (outage) {
        split.outage = true;
        return;
      }
    }
    // Every message failed alone: each at fault, or the store is down; nothing showed that the store works.
    if (split.stored === 0) split.outage = true;
  }

  /** A failed batch: no new batch starts for a while (doubling with each failed batch in a row); returns the pause. */
  private pauseAfterFailure(): number {
    this.failedBatchesInARow += 1;
    const pauseMs = Math.min(this.config.retryDelayMs * 2 ** (this.failedBatchesInARow - 1), 8 * this.config.retryDelayMs);
    this.resumeAt = Date.now() + pauseMs;
    return pauseMs;
  }

  /**
   * A part of a failed batch was stored: the store works, the failure was the batch's own. Batches start again,
   * unless another failure since has paused the worker anew.
   */
  private endPause(pausedUntil: number): void {
    if (this.resumeAt !== pausedUntil) return;
    this.resumeAt = 0;
    if (this.pending.length > 0) this.dispatch();
  }

  /** The batch was stored: each message is acked, or dead-lettered (unknown sessions), or retried (transient failure). */
  private async settle(batch: readonly PendingMessage[], { items, outcome, seconds }: Stored): Promise<void> {
    this.failedBatchesInARow = 0;
    let tokens = 0;
    let cost = 0;
    for (const item of outcome.items) {
      tokens += item.evaluationTokens ?? 0;
      cost += item.evaluationCost ?? 0;
    }
    const stored = outcome.items.filter((item) => item.status === 'ok').length;
    this.metrics.recordBatch({ sessions: items.length, stored, seconds, tokens, cost });
    this.log.debug({ sessions: items.length, messages: batch.length, seconds }, 'batch stored');
    // Said per session, as `mce compute` says it per run: its Cost is an estimate at gpt-4o's price.
    for (const item of outcome.items) {
      if (item.priceFallback) this.log.warn({ sessionId: item.sessionId, models: item.priceFallback.models }, item.priceFallback.message);
    }

    let offset = 0;
    await Promise.all(
      batch.map(async (entry) => {
        const outcomes = outcome.items.slice(offset, (offset += entry.sessionIds.length));
        const unknown = outcomes.filter((item) => item.status === 'unknown-session').map((item) => item.sessionId);
        const transient = outcomes.find((item) => item.status === 'transient-failure');
        if (unknown.length === 0 && transient) {
          // Stored, but incomplete (a judge was unreachable): computed again after the retry delay, overwriting.
          this.log.warn({ messageKey: entry.key, sessionId: transient.sessionId, error: transient.error }, 'transient metric failure: retried');
          await this.retry(entry, transient.error ?? `session ${transient.sessionId}: transient metric failure`);
          return;
        }
        if (unknown.length === 0) {
          this.metrics.messagesProcessed.inc();
          entry.settle(ConsumerStatus.ACK);
          return;
        }
        this.log.error({ messageKey: entry.key, unknownSessions: unknown }, 'unknown session: dead-lettered');
        entry.settle(
          await this.deadLetter(entry.message, entry.key, 'unknown-session', `unknown session: ${unknown.join(', ')}`, entry.attempt, {
            [HEADER.unknownSessions]: listWithin(unknown, MAX_HEADER_TEXT),
          }),
        );
      }),
    );
  }

  /** A transient failure: back to the main queue after the retry delay, or to the DLQ once the attempts are spent. */
  private async retry(entry: PendingMessage, lastError: string): Promise<void> {
    if (entry.attempt >= this.config.maxAttempts) {
      this.log.error({ messageKey: entry.key, attempts: entry.attempt, lastError }, 'attempts exhausted: dead-lettered');
      entry.settle(await this.deadLetter(entry.message, entry.key, 'max-attempts-exceeded', lastError, entry.attempt));
      return;
    }
    const headers = {
      ...ownHeaders(entry.message),
      [HEADER.attempts]: entry.attempt + 1,
      [HEADER.lastError]: lastError.slice(0, MAX_HEADER_TEXT),
    };
    try {
      await this.republish(this.queues.retry, entry.message, entry.key, headers, String(this.config.retryDelayMs));
      this.moved();
      this.metrics.messagesRetried.inc();
      entry.settle(ConsumerStatus.ACK);
    } catch (error) {
      entry.settle(await this.notMoved(error, entry.key, 'retry'));
    }
  }

  private async deadLetter(
    message: AsyncMessage,
    key: string,
    reason: DeadLetterReason,
    detail: string,
    attempts: number,
    extraHeaders: Record<string, string> = {},
  ): Promise<ConsumerStatus> {
    const headers = {
      ...ownHeaders(message),
      [HEADER.reason]: reason,
      [HEADER.attempts]: attempts,
      [HEADER.lastError]: detail.slice(0, MAX_HEADER_TEXT),
      ...extraHeaders,
    };
    try {
      await this.republish(this.queues.dlq, message, key, headers);
      this.moved();
      this.metrics.deadLettered(reason);
      return ConsumerStatus.ACK;
    } catch (error) {
      return this.notMoved(error, key, 'dead-letter');
    }
  }

  private moved(): void {
    if (!this.moveFailing) return;
    this.moveFailing = false;
    this.log.info('messages move to the retry and dead-letter queues again: ready');
  }

  /**
   * A message that could not be moved is left to the broker (requeued) rather than lost, but only after the retry
   * delay: requeued at once, it would come straight back and loop as fast as the broker can deliver it.
   */
  private async notMoved(error: unknown, key: string, queue: 'retry' | 'dead-letter'): Promise<ConsumerStatus> {
    this.moveFailing = true;
    this.metrics.movesFailed.inc();
    this.log.error({ err: error, messageKey: key }, `could not publish to the ${queue} queue: requeued after ${this.config.retryDelayMs} ms; not ready`);
    await this.pause(this.config.retryDelayMs);
    return ConsumerStatus.REQUEUE;
  }

  /** Waits `ms`, or less if the worker starts closing. */
  private pause(ms: number): Promise<void> {
    if (this.draining) return Promise.resolve();
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.pauses.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.pauses.add(end);
    });
  }

  /** Sends a copy of the message (same body, same key as message id) and waits for the broker's confirm. */
  private republish(queue: string, message: AsyncMessage, key: string, headers: Record<string, unknown>, expiration?: string): Promise<void> {
    return this.publisher.send(
      {
        routingKey: queue,
        durable: true,
        messageId: key,
        headers,
        ...(expiration ? { expiration } : {}),
        ...(message.contentType ? { contentType: message.contentType } : {}),
        ...(message.contentEncoding ? { contentEncoding: message.contentEncoding } : {}),
        ...(message.correlationId ? { correlationId: message.correlationId } : {}),
      },
      bodyBytes(message.body, message.contentType), // of its own content type: a JSON string keeps its quotes
    );
  }
}

/**
 * A message moved back from the dead-letter queue by an operator: it carries the reason this worker gave when it
 * dead-lettered it (the worker itself never sends such a message to the main queue). It starts afresh.
 */
function replayed(message: AsyncMessage): boolean {
  return message.headers?.[HEADER.reason] !== undefined;
}

/**
 * The message's headers without the ones the broker maintains when it dead-letters (it adds them again), and, for a
 * replayed message, without the ones of its earlier life (attempts, reason, last error, unknown sessions).
 */
function ownHeaders(message: AsyncMessage): Record<string, unknown> {
  const fresh = replayed(message);
  return Object.fromEntries(
    Object.entries(message.headers ?? {}).filter(
      ([name]) => !/^x-(death|first-death-|last-death-)/.test(name) && !(fresh && name.startsWith('x-mce-')),
    ),
  );
}

/** `items` joined with commas, cut to about `max` characters with the number left out named. */
function listWithin(items: readonly string[], max: number): string {
  let text = '';
  for (let i = 0; i < items.length; i++) {
    const next = i === 0 ? items[i] : `${text},${items[i]}`;
    if ((next as string).length > max) return `${text ? `${text},` : ''}… (+${items.length - i} more)`;
    text = next as string;
  }
  return text;
}

/** The attempt this delivery is: the retry header, else 1 (also for a message replayed from the DLQ). */
function attemptOf(message: AsyncMessage): number {
  if (replayed(message)) return 1;
  const raw: unknown = message.headers?.[HEADER.attempts];
  const value = typeof raw === 'bigint' ? Number(raw) : typeof raw === 'string' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 1;
}

/**
 * `messages` in order, cut into batches that each end once they hold `batchSize` sessions (a message is never split:
 * one of many sessions makes a batch larger, as it would have when it arrived); the last one may hold fewer.
 */
function batchesOf(messages: readonly PendingMessage[], batchSize: number): PendingMessage[][] {
  const batches: PendingMessage[][] = [];
  let batch: PendingMessage[] = [];
  let sessions = 0;
  for (const entry of messages) {
    batch.push(entry);
    sessions += entry.sessionIds.length;
    if (sessions >= batchSize) {
      batches.push(batch);
      batch = [];
      sessions = 0;
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The two halves of a part of several messages (the first one the larger). */
function halves(part: PendingMessage[]): PendingMessage[][] {
  const middle = Math.ceil(part.length / 2);
  return [part.slice(0, middle), part.slice(middle)];
}

function sessionCount(batch: readonly PendingMessage[]): number {
  let count = 0;
  for (const entry of batch) count += entry.sessionIds.length;
  return count;
}
