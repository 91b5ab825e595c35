/**
 * Gathering delivered messages into batches: by session count (`batch_size`), or after `batch_max_wait_ms`, not
 * before the pause after a failed batch ends (unless the worker is stopping). Each batch is handed to `run`; the
 * batches in flight are kept for the stop to wait on.
 */
import type { WorkerConfig } from '../config.js';
import type { PendingMessage } from './delivery.js';
import type { FailurePause } from './pause.js';

export class BatchGatherer {
  readonly inFlight = new Set<Promise<void>>();
  private pending: PendingMessage[] = [];
  private pendingSessions = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: Pick<WorkerConfig, 'batchSize' | 'batchMaxWaitMs'>,
    private readonly pause: FailurePause,
    private readonly stopping: { draining: boolean },
    private readonly run: (batch: PendingMessage[]) => Promise<void>,
  ) {}

  get waiting(): number {
    return this.pending.length;
  }

  add(entry: PendingMessage): void {
    this.pending.push(entry);
    this.pendingSessions += entry.sessionIds.length;
    if (this.pendingSessions >= this.config.batchSize) this.dispatch();
    else this.timer ??= setTimeout(() => this.dispatch(), this.config.batchMaxWaitMs);
  }

  /**
   * Hands the gathered messages to `run`, in batches of `batch_size` sessions. Usually they are one batch; but what
   * gathered during a pause (up to `prefetch` messages: after an outage, the backlog coming back from the retry
   * queue) leaves as several, not as one call larger than the store is sized for.
   */
  dispatch(): void {
    this.stopTimer();
    if (this.pending.length === 0) return;
    const wait = this.pause.remainingMs();
    if (wait > 0 && !this.stopping.draining) {
      this.timer = setTimeout(() => this.dispatch(), wait); // paused after a failed batch
      return;
    }
    const pending = this.pending;
    this.pending = [];
    this.pendingSessions = 0;
    for (const batch of batchesOf(pending, this.config.batchSize)) {
      const run = this.run(batch).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * `messages` in order, cut into batches that each end once they hold `batchSize` sessions (a message is never split:
 * one of many sessions makes a batch larger, as it would have when it arrived); the last one may hold fewer.
 */
export function batchesOf<T extends { sessionIds: readonly string[] }>(messages: readonly T[], batchSize: number): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
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
