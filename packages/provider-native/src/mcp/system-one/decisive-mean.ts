/**
 * How the system_one MCPUse score combines System One's answers: their weighted mean, where each answer's weight
 * (the configured one) is multiplied by e^(−DECISIVE_SHARPNESS · value). An answer one level lower (1/3) thus weighs
 * e times as much, so one decisive failure (a claim no result supports, a request half done) dominates the score
 * instead of moving it by at most a third, while answers that agree keep their plain weighted mean.
 */
import { SYSTEM_ONE_QUESTIONS, type SystemOneQuestion } from './types.js';

/** 3: a level lower (1/3) multiplies an answer's weight by e. */
export const DECISIVE_SHARPNESS = 3;

/** The effective weights (normalised) of the answers' values under the configured weights. */
export function decisiveWeights(
  values: Readonly<Record<SystemOneQuestion, number>>,
  configured: Readonly<Record<SystemOneQuestion, number>>,
): Record<SystemOneQuestion, number> {
  const raw = SYSTEM_ONE_QUESTIONS.map((q) => configured[q] * Math.exp(-DECISIVE_SHARPNESS * values[q]));
  const total = raw.reduce((s, w) => s + w, 0);
  return Object.fromEntries(SYSTEM_ONE_QUESTIONS.map((q, i) => [q, total > 0 ? raw[i]! / total : 0])) as Record<SystemOneQuestion, number>;
}
