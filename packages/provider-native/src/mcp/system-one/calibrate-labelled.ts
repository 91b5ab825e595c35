/**
 * Calibration on the labelled set: the turns of the training split with their structural features (never the
 * held-out split). The legacy items (the earlier hand-made set: follow-up turns, resources, prompts, labelled
 * good/bad) count for primitives, and for arguments where the primitive was right: their other labels followed
 * other rules (a wrong primitive made the task bad even when the reply was right; a wrong tool's arguments were
 * judged on their own).
 * A good interaction weighs as much as all its degraded twins together, so each failure class is set against
 * its good counterparts on equal terms (the set holds seven degraded interactions for each good one).
 */
import { calibrate, type CalibratedWeights, type CalibrationExample } from './calibrate.js';
import { extractFeatures } from './features.js';
import { parseLabelledSet, type LabelledSetData, type LabelledTurn } from './labelled-set.js';

/**
 * The questions a legacy turn counts for: primitives always; arguments only when the primitive was right (its
 * labels judged a wrong tool's or a missing call's arguments on their own, where this set's classes rate them "no"
 * or "mostly no"); never the task.
 */
function legacyLabels(labels: LabelledTurn['labels']): LabelledTurn['labels'] {
  const { primitives, arguments: args } = labels;
  return {
    ...(primitives !== undefined ? { primitives } : {}),
    ...(args !== undefined && primitives === 1 ? { arguments: args } : {}),
  };
}

/** A scenario's casual rewording (`…~casual…`) belongs to the scenario: cross-validation keeps them in one fold. */
const scenarioOf = (id: string) => id.replace(/~casual/, '');

export function calibrationExamples(data: LabelledSetData): CalibrationExample[] {
  const items = parseLabelledSet(data).filter((i) => !i.holdout);
  const twins = new Map<string, number>();
  for (const i of items) if (i.twin !== null) twins.set(i.twin, (twins.get(i.twin) ?? 0) + 1);
  return items.flatMap((i) =>
    i.turns.map((t) => {
      const labels = i.category.startsWith('legacy:') ? legacyLabels(t.labels) : t.labels;
      return { features: extractFeatures(t.interaction), labels, weight: twins.get(i.id) ?? 1, group: scenarioOf(i.twin ?? i.id) };
    }),
  );
}

export function calibrateOnLabelledSet(data: LabelledSetData): CalibratedWeights {
  return calibrate(calibrationExamples(data));
}
