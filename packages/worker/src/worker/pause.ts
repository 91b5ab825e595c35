/**
 * The pause after a failed batch (the store or another service the processor needs is down): no new batch starts
 * before `resumeAt` (epoch ms), and /readyz says not ready. A worker that kept taking batches would spend every
 * queued message's attempts within seconds and dead-letter the whole queue during a short outage; unacked messages
 * wait meanwhile (prefetch bounds them). The pause doubles with each failed batch in a row, up to 8 × retry_delay_ms.
 * It ends early when a part of a split batch is stored (the failure was the batch's own, see split-search.ts).
 */
export class FailurePause {
  /** No new batch before this time (epoch ms); 0 when not paused. */
  resumeAt = 0;
  private failedInARow = 0;

  constructor(
    private readonly retryDelayMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A batch failed: the pause begins (or begins anew, longer); returns its length. */
  begin(): number {
    this.failedInARow += 1;
    const pauseMs = Math.min(this.retryDelayMs * 2 ** (this.failedInARow - 1), 8 * this.retryDelayMs);
    this.resumeAt = this.now() + pauseMs;
    return pauseMs;
  }

  /** A batch was stored: the run of failures is over (the next one pauses as briefly as the first). */
  succeeded(): void {
    this.failedInARow = 0;
  }

  /**
   * A part of a failed batch was stored: the store works. Ends the pause begun at `pausedUntil`, unless another
   * failure since has paused the worker anew; true when it ended it.
   */
  endIfStill(pausedUntil: number): boolean {
    if (this.resumeAt !== pausedUntil) return false;
    this.resumeAt = 0;
    return true;
  }

  /** Milliseconds until batches may start again (≤ 0: now). */
  remainingMs(): number {
    return this.resumeAt - this.now();
  }
}
