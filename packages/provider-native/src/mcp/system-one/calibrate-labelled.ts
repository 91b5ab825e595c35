/** Calibration on the labelled set: the turns of items not held out, with their structural features. */
import { calibrate, type CalibratedWeights } from './calibrate.js';
import { extractFeatures } from './features.js';
import { labelledTurns, type LabelledSetData } from './labelled-set.js';

export function calibrateOnLabelledSet(data: LabelledSetData): CalibratedWeights {
  const train = labelledTurns(data).filter((t) => !t.holdout);
  return calibrate(train.map((t) => ({ features: extractFeatures(t.interaction), labels: t.labels })));
}
