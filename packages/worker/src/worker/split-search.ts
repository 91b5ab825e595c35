/**
 * The search for the messages at fault in a batch of several that failed as a whole, not on an outage: a message of
 * it may be at fault (a session the store refuses) rather than the store.
 *
 * The parts are processed level by level: the batch's halves, then the halves of every part that failed, and so on.
 * A part that is stored is settled (the first one ends the pause after the failure); from then on the store is known
 * to work, and every failing part is split again down to the single messages at fault: at most 2·⌈log₂ n⌉ calls per
 * message at fault in a batch of n, and never more than 2n − 2 (every part).
 *
 * Until a part is stored, the failure may be the store's: the search goes only as many levels deep as the batch's
 * most-tried message has attempts (halves for fresh messages, quarters once they failed before, …), then takes it
 * for an outage — at most 2^(a+1) − 2 calls for attempt a, and again never more than 2n − 2 — and every message
 * goes to `failed` with `outage` set. k messages at fault spread over every half (a pair split between the halves)
 * look like an outage at first; each attempt they spend doubles the parts tried, so by the attempt a with 2^a > k a
 * part without them is stored and the search finds them: their neighbours are dragged to the dead-letter queue only
 * when k ≥ 2^max_attempts. A part failing on an outage (a service unavailable: failure.ts) ends the search as one.
 */
import type { Run, Stored } from './process-batch.js';

export interface SplitResult<T> {
  /** Messages that failed in the smallest part they were tried in, with that part's error. */
  failed: { entry: T; error: unknown }[];
  /** Messages stored meanwhile. */
  stored: number;
  /** No part was stored, or a part failed on an outage: the store is taken to be down. */
  outage: boolean;
}

export interface SearchSteps<T> {
  process(part: T[]): Promise<Run>;
  /** A part was stored: settle it. `first`: the first part stored in this search (the store works). */
  stored(part: T[], run: Stored, first: boolean): Promise<void>;
  isOutage(error: unknown): boolean;
}

export async function searchFaults<T extends { attempt: number }>(batch: T[], steps: SearchSteps<T>): Promise<SplitResult<T>> {
  const split: SplitResult<T> = { failed: [], stored: 0, outage: false };
  const blindLevels = Math.max(...batch.map((entry) => entry.attempt));
  let failing: T[][] = [batch];
  for (let level = 1; failing.length > 0; level++) {
    const parts = failing.flatMap(halves);
    const failed: { part: T[]; error: unknown }[] = [];
    for (const [i, part] of parts.entries()) {
      const run = await steps.process(part);
      if (run.ok) {
        const first = split.stored === 0;
        split.stored += part.length;
        await steps.stored(part, run, first);
      } else if (steps.isOutage(run.error)) {
        split.outage = true;
        for (const rest of [...failed.map((failure) => failure.part), ...parts.slice(i)]) {
          for (const entry of rest) split.failed.push({ entry, error: run.error });
        }
        return split;
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
      return split;
    }
  }
  // Every message failed alone: each at fault, or the store is down; nothing showed that the store works.
  if (split.stored === 0) split.outage = true;
  return split;
}

/** The two halves of a part of several messages (the first one the larger). */
export function halves<T>(part: T[]): T[][] {
  const middle = Math.ceil(part.length / 2);
  return [part.slice(0, middle), part.slice(middle)];
}
