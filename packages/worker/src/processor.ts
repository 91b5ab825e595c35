/**
 * What the worker needs from the computation side: `MCEWorkerService.processBatch` from @mce/client. Only the
 * per-item outcomes matter to the AMQP machinery, so any processor returning them fits (tests use small ones).
 */
import type { BatchItem, BatchItemOutcome as ServiceItemOutcome } from '@mce/client';

export type { BatchItem };

/** `unknown-session`: the store has no such session (the message is dead-lettered); usage fields feed /metrics. */
export type BatchItemOutcome = Omit<ServiceItemOutcome, 'skippedMetrics' | 'evaluationTokens' | 'evaluationCost'> &
  Partial<Pick<ServiceItemOutcome, 'skippedMetrics' | 'evaluationTokens' | 'evaluationCost'>>;

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
