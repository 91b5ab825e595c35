/**
 * Processing a batch and settling its messages. A message is acked only after the batch's flush committed (or that of
 * the part it was processed again in, when its batch failed and was split), or after it was safely moved to the
 * retry or dead-letter queue. Anything not acked is redelivered by the broker, and because run ids derive from the
 * message, reprocessing overwrites instead of duplicating.
 *
 * Messages back from the retry queue travel in batches with the others: after an outage every message that was in
 * flight comes back retried, and one call each would drain that backlog at the single-message rate. A message at
 * fault among them is found when its batch fails (split-search.ts), by a search that goes deeper the more often the
 * batch's messages failed before.
 */
import { ConsumerStatus } from 'rabbitmq-client';
import { errorText, toError } from '@mce/core';
import { isOutage } from '../failure.js';
import { batchUsage } from '../metrics.js';
import type { BatchProcessor } from '../processor.js';
import type { WorkerContext } from './context.js';
import { decide, outcomesPerMessage } from './decide.js';
import type { PendingMessage } from './delivery.js';
import type { MessageMover } from './moves.js';
import type { FailurePause } from './pause.js';
import { processMessages, sessionCount, type Run, type Stored } from './process-batch.js';
import { searchFaults } from './split-search.js';

export class BatchRunner {
  constructor(
    private readonly context: WorkerContext,
    private readonly processor: BatchProcessor,
    private readonly pause: FailurePause,
    private readonly mover: MessageMover,
    /** The pause ended early: the batches that waited may start. */
    private readonly resumed: () => void,
  ) {}

  async run(batch: PendingMessage[]): Promise<void> {
    const run = await this.process(batch);
    if (run.ok) {
      await this.settle(batch, run);
      return;
    }
    this.context.metrics.batchesFailed.inc();
    const pauseMs = this.pause.begin();
    if (batch.length > 1 && !isOutage(run.error)) {
      await this.splitFailed(batch, run.error, pauseMs);
      return;
    }
    this.context.log.warn(
      { err: run.error, sessions: sessionCount(batch), messages: batch.length, pauseMs },
      'batch failed: messages go to the retry queue; no new batch during the pause',
    );
    await Promise.all(batch.map((entry) => this.retry(entry, errorText(toError(run.error)))));
  }

  private process(batch: readonly PendingMessage[]): Promise<Run> {
    return processMessages(this.processor, batch);
  }

  /**
   * A batch of several messages failed, not on an outage: its messages are processed again at once, in parts
   * (split-search.ts): what is stored is acked now, what fails goes to the retry queue. When no part is stored, or a
   * part fails on an outage, the store is likely down: the messages not stored go to the retry queue and the pause
   * begun by the failure holds. While this runs no new batch starts (the pause); it ends once a part was stored.
   */
  private async splitFailed(batch: PendingMessage[], error: unknown, pauseMs: number): Promise<void> {
    const { log, metrics } = this.context;
    metrics.batchesSplit.inc();
    log.warn({ err: error, sessions: sessionCount(batch), messages: batch.length }, 'batch failed: processing its messages again in parts to find the ones at fault');
    const pausedUntil = this.pause.resumeAt;
    const split = await searchFaults(batch, {
      process: (part) => this.process(part),
      stored: async (part, run, first) => {
        if (first && this.pause.endIfStill(pausedUntil)) this.resumed();
        await this.settle(part, run);
      },
      isOutage,
    });
    if (split.outage) {
      // After a part was stored (which ended the pause) the store failed: a new run of failures begins.
      const pause = split.stored > 0 ? this.pause.begin() : pauseMs;
      log.warn(
        { err: split.failed[0]?.error, messages: split.failed.length, storedMessages: split.stored, pauseMs: pause },
        'batch failed: messages go to the retry queue; no new batch during the pause',
      );
    } else if (split.failed.length > 0) {
      log.warn(
        { messageKeys: split.failed.map(({ entry }) => entry.key), storedMessages: split.stored },
        'batch failed because of some of its messages: they go to the retry queue, the others were stored',
      );
    } else {
      log.info({ storedMessages: split.stored }, 'batch failed, but its parts were stored when processed again');
    }
    await Promise.all(split.failed.map(({ entry, error: cause }) => this.retry(entry, errorText(toError(cause)))));
  }

  /** The batch was stored: each message is acked, or dead-lettered (unknown sessions), or retried (transient failure). */
  private async settle(batch: readonly PendingMessage[], { items, outcome, seconds }: Stored): Promise<void> {
    const { log, metrics, tally } = this.context;
    this.pause.succeeded();
    metrics.recordBatch({ sessions: items.length, seconds, ...batchUsage(outcome) });
    log.debug({ sessions: items.length, messages: batch.length, seconds }, 'batch stored');
    // Said per session, as `mce compute` says it per run: its Cost is an estimate at gpt-4o's price.
    for (const item of outcome.items) {
      if (item.priceFallback) log.warn({ sessionId: item.sessionId, models: item.priceFallback.models }, item.priceFallback.message);
    }
    const perMessage = outcomesPerMessage(batch, outcome.items);
    await Promise.all(
      batch.map(async (entry, i) => {
        const decision = decide(perMessage[i] ?? []);
        if (decision.action === 'ack') {
          if (tally.counts(entry)) metrics.messagesProcessed.inc();
          entry.settle(ConsumerStatus.ACK);
        } else if (decision.action === 'retry') {
          log.warn({ messageKey: entry.key, sessionId: decision.sessionId, error: decision.error }, 'transient metric failure: retried');
          await this.retry(entry, decision.error);
        } else {
          log.error({ messageKey: entry.key, unknownSessions: decision.unknownSessions }, 'unknown session: dead-lettered');
          const detail = `unknown session: ${decision.unknownSessions.join(', ')}`;
          entry.settle(await this.mover.deadLetter(entry, 'unknown-session', detail, decision.unknownSessions));
        }
      }),
    );
  }

  private async retry(entry: PendingMessage, lastError: string): Promise<void> {
    entry.settle(await this.mover.retry(entry, lastError));
  }
}
