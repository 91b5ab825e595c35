/**
 * What the worker needs from the computation side: `MCEWorkerService.processBatch` (in @mce/client) satisfies it
 * structurally. Declared here so the AMQP machinery does not depend on how sessions are computed or stored.
 */

/** One session to compute, under the run id the worker derived from its message (result ids derive from it). */
export interface BatchItem {
  sessionId: string;
  runId: string;
}

export interface BatchItemOutcome {
  sessionId: string;
  /** `unknown-session`: the store has no such session; the message is dead-lettered. */
  status: 'ok' | 'unknown-session';
  /** Results written for this session. */
  results: number;
  /** Metrics that failed for this session (failed results, not a failed message). */
  failedMetrics: number;
  /** Judge tokens spent on this session, when the processor reports usage. */
  evaluationTokens?: number;
  /** Judge cost (USD) of this session, when the processor reports usage. */
  evaluationCost?: number;
}

export interface BatchOutcome {
  /** One entry per input item, in the same order. */
  items: BatchItemOutcome[];
}

export interface BatchProcessor {
  /**
   * Computes every session of the batch and writes all results in one flush. Resolves only after the flush
   * committed; throws when the store or the judge is unreachable (the worker retries the batch's messages later).
   */
  processBatch(items: BatchItem[]): Promise<BatchOutcome>;
}
