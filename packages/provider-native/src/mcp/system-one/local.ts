/**
 * The `local` System One model: structural features → calibrated logistic probability p that the answer is
 * "yes" → four levels as Binomial(3, p), so the expected level / 3 is exactly the calibrated p.
 * In-process, deterministic, no network.
 */
import weightsFile from './weights.json' with { type: 'json' };
import type { CalibratedWeights, LogisticWeights } from './calibrate.js';
import { sigmoid } from './calibrate.js';
import { FEATURE_NAMES, extractFeatures, type FeatureVector } from './features.js';
import type { SystemOneAnswer, SystemOneModel, SystemOneQuestion, SystemOneRequest, SystemOneResult } from './types.js';
import { answerFrom } from './types.js';

export const CALIBRATED_WEIGHTS = weightsFile as CalibratedWeights;

/** Level probabilities of Binomial(3, p). */
export function levelProbabilities(p: number): [number, number, number, number] {
  const q = 1 - p;
  return [q * q * q, 3 * p * q * q, 3 * p * p * q, p * p * p];
}

export function probabilityYes(weights: LogisticWeights, features: FeatureVector): number {
  let z = weights.bias;
  for (let i = 0; i < features.length; i++) z += (weights.weights[i] ?? 0) * features[i]!;
  return sigmoid(z);
}

export class LocalSystemOne implements SystemOneModel {
  /** The seed's name of the local calibrated model. */
  readonly id = 'jev-latest';
  readonly #weights: CalibratedWeights;

  constructor(weights: CalibratedWeights = CALIBRATED_WEIGHTS) {
    if (weights.features.join() !== FEATURE_NAMES.join())
      throw new Error('System One weights were fitted on other features: run scripts/calibrate-system-one.mjs');
    this.#weights = weights;
  }

  /** Synchronous core, for callers that batch many interactions. */
  answerSync(request: SystemOneRequest): SystemOneResult {
    const features = extractFeatures(request.interaction, request.extracted);
    const answers: SystemOneAnswer[] = request.questions.map((q: SystemOneQuestion) =>
      answerFrom(q, levelProbabilities(probabilityYes(this.#weights.questions[q], features))),
    );
    if (!request.explain) return { answers, model: this.id };
    const evidence: Record<string, number> = {};
    FEATURE_NAMES.forEach((name, i) => {
      if (features[i]) evidence[name] = Math.round(features[i]! * 1000) / 1000;
    });
    return { answers, model: this.id, evidence };
  }

  answer(request: SystemOneRequest): Promise<SystemOneResult> {
    try {
      return Promise.resolve(this.answerSync(request));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }
}
