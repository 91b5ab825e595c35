/** One processBatch call for the messages of a batch, all their sessions in order, under their stable run ids. */
import { runIdFor } from '../message.js';
import type { BatchItem, BatchOutcome, BatchProcessor } from '../processor.js';

/** A processBatch call that succeeded (its outcome matched the sessions it was given), with what it was given. */
export interface Stored {
  ok: true;
  items: BatchItem[];
  outcome: BatchOutcome;
  seconds: number;
}

/** What one processBatch call gave. */
export type Run = Stored | { ok: false; error: unknown };

export async function processMessages(processor: BatchProcessor, batch: readonly { key: string; sessionIds: readonly string[] }[]): Promise<Run> {
  const items: BatchItem[] = batch.flatMap((entry) => entry.sessionIds.map((sessionId) => ({ sessionId, runId: runIdFor(entry.key, sessionId) })));
  const started = performance.now();
  try {
    const outcome = await processor.processBatch(items);
    if (outcome.items.length !== items.length) {
      throw new Error(`processBatch returned ${outcome.items.length} outcomes for ${items.length} sessions`);
    }
    return { ok: true, items, outcome, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return { ok: false, error };
  }
}

export function sessionCount(batch: readonly { sessionIds: readonly string[] }[]): number {
  let count = 0;
  for (const entry of batch) count += entry.sessionIds.length;
  return count;
}
