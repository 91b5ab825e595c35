import type { ResultRecord } from '@mce/core';

const keyOf = (r: ResultRecord) => `${r.provider}\u0000${r.name}\u0000${r.level}\u0000${r.measures}`;

/**
 * Of several runs' stored results of one metric on one element, the newest (in the order given): what a report shows
 * and what `mce check` holds to its thresholds. The history is the trends' business.
 */
export function newestResults(results: readonly ResultRecord[]): ResultRecord[] {
  const newest = new Map<string, ResultRecord>();
  for (const r of results) {
    const kept = newest.get(keyOf(r));
    if (!kept || r.timestamp > kept.timestamp) newest.set(keyOf(r), r);
  }
  return results.filter((r) => newest.get(keyOf(r)) === r);
}
