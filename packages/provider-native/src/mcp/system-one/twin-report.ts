/**
 * How well scores separate the labelled set's good interactions from their degraded twins: per failure class the
 * mean score of the degraded ones against the mean of their good counterparts, and the share of pairs ranked right
 * (the good twin strictly above the degraded one).
 */
import type { LabelledItem } from './labelled-set.js';

export interface ClassGap {
  pairs: number;
  degradedMean: number;
  goodMean: number;
  /** goodMean − degradedMean. */
  gap: number;
  /** Pairs whose good twin scored strictly higher. */
  rankedRight: number;
}

export interface TwinReport {
  perClass: Record<string, ClassGap>;
  pairs: number;
  /** Share of all pairs ranked right. */
  pairwiseAccuracy: number;
}

/** `score` gives each item's score (e.g. a metric's value on the item's session). */
export function twinReport(items: readonly LabelledItem[], score: ReadonlyMap<string, number>): TwinReport {
  const byId = new Map(items.map((i) => [i.id, i]));
  const perClass: Record<string, ClassGap> = {};
  let pairs = 0;
  let right = 0;
  for (const item of items) {
    if (item.twin === null) continue;
    const good = byId.get(item.twin);
    const degraded = score.get(item.id);
    const counterpart = good ? score.get(good.id) : undefined;
    if (degraded === undefined || counterpart === undefined) throw new Error(`no score for ${item.id} or its twin ${item.twin}`);
    const slot = (perClass[item.category] ??= { pairs: 0, degradedMean: 0, goodMean: 0, gap: 0, rankedRight: 0 });
    slot.pairs++;
    slot.degradedMean += degraded;
    slot.goodMean += counterpart;
    if (counterpart > degraded) {
      slot.rankedRight++;
      right++;
    }
    pairs++;
  }
  for (const slot of Object.values(perClass)) {
    slot.degradedMean /= slot.pairs;
    slot.goodMean /= slot.pairs;
    slot.gap = slot.goodMean - slot.degradedMean;
  }
  return { perClass, pairs, pairwiseAccuracy: pairs ? right / pairs : 0 };
}
