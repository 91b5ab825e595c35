/**
 * A processor that cannot start yet: its store holds no tables (a misspelt PostgreSQL `schema=`, or nothing ingested
 * there yet). A worker consuming then would find no session of any message and dead-letter them all; instead it
 * consumes nothing, /readyz says not ready, and it tries again every retry delay.
 */
import type { Logger } from './logger.js';
import type { BatchProcessor } from './processor.js';

export interface PendingProcessor {
  /** Why it cannot start (the store's own message: which store, which setting may be misspelt). */
  reason: string;
  /** The processor once it can start; undefined while it still cannot (a store still missing). */
  tryStart(): Promise<BatchProcessor | undefined>;
}

export function isPendingProcessor(processor: BatchProcessor | PendingProcessor): processor is PendingProcessor {
  return typeof (processor as PendingProcessor).tryStart === 'function';
}

/** The processor, once `pending` can start; undefined when `stopped` settles first. */
export async function awaitProcessor(pending: PendingProcessor, retryDelayMs: number, log: Logger, stopped: Promise<unknown>): Promise<BatchProcessor | undefined> {
  // At least a second between tries: a retry delay of 0 would poll the store as fast as it answers.
  const delay = Math.max(retryDelayMs, 1000);
  log.warn({ retryDelayMs: delay }, `${pending.reason}: not ready, consuming nothing; trying again every ${delay} ms`);
  let stop = false;
  void stopped.then(() => (stop = true));
  while (!stop) {
    const processor = await pending.tryStart();
    if (processor) {
      log.info('the store is there: starting');
      return processor;
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, delay).unref()), stopped]);
  }
  return undefined;
}
