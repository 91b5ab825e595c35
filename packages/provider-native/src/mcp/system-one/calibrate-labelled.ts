/**
 * Calibration on the labelled set: the turns of the training split with their structural features (never the
 * held-out split). The legacy items (the earlier hand-made set: follow-up turns, resources, prompts, labelled
 * good/bad) count for primitives and arguments only: their task label followed another rule (a wrong primitive
 * made the task bad even when the reply was right).
 * A good interaction weighs as much as all its degraded twins together, so each failure class is set against
 * its good counterparts on equal terms (the set holds seven degraded interactions for each good one).
 */
import { calibrate, type CalibratedWeights, type CalibrationExample } from './calibrate.js';
import { extractFeatures } from './features.js';
import { parseLabelledSet, type LabelledSetData } from './labelled-set.js';

export function calibrationExamples(data: LabelledSetData): CalibrationExample[] {
  const items = parseLabelledSet(data).filter((i) => !i.holdout);
  const twins = new Map<string, number>();
  for (const i of items) if (i.twin !== null) twins.set(i.twin, (twins.get(i.twin) ?? 0) + 1);
  return items.flatMap((i) =>
    i.turns.map((t) => {
      const { task, ...useLabels } = t.labels;
      const labels = i.category.startsWith('legacy:') ? useLabels : { ...useLabels, ...(task !== undefined ? { task } : {}) };
      return { features: extractFeatures(t.interaction), labels, weight: twins.get(i.id) ?? 1, group: i.twin ?? i.id };
    }),
  );
}

export function calibrateOnLabelledSet(data: LabelledSetData): CalibratedWeights {
  return calibrate(calibrationExamples(data));
}
