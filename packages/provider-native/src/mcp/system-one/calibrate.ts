/**
 * Calibration of the local System One model: one L2-regularised logistic regression per question on the
 * structural features, fitted on the labelled set's graded labels as soft targets (level / 3: 0, 1/3, 2/3, 1), so
 * the calibrated probability is the expected level. Deterministic (full-batch Newton steps
 * from zero, fixed count, rounded), so the committed weights can be checked against a fresh fit.
 */
import { FEATURE_NAMES, type FeatureVector } from './features.js';
import { SYSTEM_ONE_QUESTIONS, type SystemOneQuestion } from './types.js';

export interface LogisticWeights {
  bias: number;
  weights: number[];
}

export interface CalibratedWeights {
  features: string[];
  /** L2 penalty (bias not penalised). */
  lambda: number;
  /** Examples each question was fitted on. */
  examples: Record<SystemOneQuestion, number>;
  questions: Record<SystemOneQuestion, LogisticWeights>;
}

export interface CalibrationExample {
  features: FeatureVector;
  /** Target per question in [0, 1] (the label's level / 3). */
  labels: Partial<Record<SystemOneQuestion, number>>;
  /** How much the example counts (default 1): a good interaction counts as much as all its degraded twins together. */
  weight?: number;
  /**
   * The scenario it belongs to (a good interaction and its degraded twins share one): cross-validation keeps a
   * scenario in one fold, so the penalty is judged on scenarios the fit has not seen. Default: its own.
   */
  group?: string;
}

/** Candidate L2 penalties; the one with the lowest cross-validated log-loss on the calibration data is used. */
export const LAMBDA_GRID = [0.01, 0.03, 0.1, 0.3, 1, 3] as const;
const FOLDS = 5;
const NEWTON_STEPS = 25;
const round = (x: number) => Math.round(x * 1e6) / 1e6 || 0;

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Solve A x = b (Gaussian elimination with partial pivoting); A is small (features + 1). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    const pivot = m[c]![c]!;
    if (Math.abs(pivot) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = m[r]![c]! / pivot;
      if (k === 0) continue;
      for (let j = c; j <= n; j++) m[r]![j]! -= k * m[c]![j]!;
    }
  }
  return m.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
}

/**
 * Whether a question's feature weights are kept ≤ 0. For the task every feature is a failure signal, so none may
 * raise its "yes" (unconstrained, the rule-made training split taught an irrelevant call to raise it). For the
 * primitives and the arguments a signal of the other question's failure may rightly raise it (an error blamed on
 * the arguments says the tool was the right one), so they are left free.
 */
export const NON_POSITIVE: Record<SystemOneQuestion, boolean> = { primitives: false, arguments: false, task: true };
/**
 * The bound those weights are kept at or below: a little under 0, so every failure signal lowers the answer at least
 * a little. At 0, a degraded interaction differing from its good twin only in signals the fit left unused tied it.
 */
export const WEIGHT_BOUND: number = -0.05;

/**
 * Fit p(good) = σ(bias + w·x) by Newton's method on the penalised log-likelihood; with `nonPositive`, projected
 * Newton keeps every feature weight ≤ WEIGHT_BOUND (a weight at the bound whose gradient would push it up stays out
 * of the step).
 */
export function fitLogistic(
  xs: readonly FeatureVector[],
  ys: readonly number[],
  lambda: number,
  weights?: readonly number[],
  nonPositive = false,
): LogisticWeights {
  const d = FEATURE_NAMES.length + 1; // index 0 = bias
  let w: number[] = Array.from({ length: d }, (_, j) => (nonPositive && j > 0 ? WEIGHT_BOUND : 0));
  for (let step = 0; step < NEWTON_STEPS; step++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    xs.forEach((x, i) => {
      const row = [1, ...x];
      let z = 0;
      for (let j = 0; j < d; j++) z += w[j]! * row[j]!;
      const p = sigmoid(z);
      const weight = weights?.[i] ?? 1;
      const r = weight * (p - ys[i]!);
      const s = weight * p * (1 - p);
      for (let j = 0; j < d; j++) {
        grad[j]! += r * row[j]!;
        for (let k = 0; k < d; k++) hess[j]![k]! += s * row[j]! * row[k]!;
      }
    });
    for (let j = 1; j < d; j++) {
      grad[j]! += lambda * w[j]!;
      hess[j]![j]! += lambda;
    }
    hess[0]![0]! += 1e-6;
    if (nonPositive) fixAtBound(w, grad, hess);
    const delta = solve(hess, grad);
    w = w.map((v, j) => (nonPositive && j > 0 ? Math.min(WEIGHT_BOUND, v - delta[j]!) : v - delta[j]!));
  }
  return { bias: round(w[0]!), weights: w.slice(1).map(round) };
}

/** Weights at the bound whose gradient would push them up are taken out of the Newton step (their row set to identity). */
function fixAtBound(w: readonly number[], grad: number[], hess: number[][]): void {
  for (let j = 1; j < w.length; j++) {
    if (w[j]! < WEIGHT_BOUND || grad[j]! > 0) continue;
    grad[j] = 0;
    for (let k = 0; k < w.length; k++) hess[j]![k] = hess[k]![j] = 0;
    hess[j]![j] = 1;
  }
}

/** Cross-entropy against a soft target y in [0, 1]. */
function logLoss(w: LogisticWeights, x: FeatureVector, y: number): number {
  let z = w.bias;
  x.forEach((v, i) => (z += (w.weights[i] ?? 0) * v));
  const p = Math.min(1 - 1e-9, Math.max(1e-9, sigmoid(z)));
  return -(y * Math.log(p) + (1 - y) * Math.log(1 - p));
}

/** Each example's fold: its scenario's position among the scenarios in first-seen order, modulo FOLDS. */
function foldsOf(examples: readonly CalibrationExample[]): number[] {
  const order = new Map<string, number>();
  return examples.map((e, i) => {
    const group = e.group ?? `#${i}`;
    if (!order.has(group)) order.set(group, order.size);
    return order.get(group)! % FOLDS;
  });
}

/**
 * The 5-fold cross-validated log-loss of fits with penalty `lambda`, summed over the questions; folds hold whole
 * scenarios (by position of the scenario, deterministic), so a held-out fold never shares a scenario with the fit.
 */
export function crossValidatedLoss(examples: readonly CalibrationExample[], lambda: number): number {
  let loss = 0;
  for (const q of SYSTEM_ONE_QUESTIONS) {
    const used = examples.filter((e) => e.labels[q] !== undefined);
    const folds = foldsOf(used);
    for (let fold = 0; fold < FOLDS; fold++) {
      const train = used.filter((_, i) => folds[i] !== fold);
      const test = used.filter((_, i) => folds[i] === fold);
      const w = fitLogistic(train.map((e) => e.features), train.map((e) => e.labels[q]!), lambda, train.map((e) => e.weight ?? 1), NON_POSITIVE[q]);
      for (const e of test) loss += (e.weight ?? 1) * logLoss(w, e.features, e.labels[q]!);
    }
  }
  return loss;
}

/** The penalty from LAMBDA_GRID with the lowest cross-validated log-loss. */
export function chooseLambda(examples: readonly CalibrationExample[]): number {
  let best: number = LAMBDA_GRID[0];
  let bestLoss = Infinity;
  for (const lambda of LAMBDA_GRID) {
    const loss = crossValidatedLoss(examples, lambda);
    if (loss < bestLoss - 1e-12) {
      bestLoss = loss;
      best = lambda;
    }
  }
  return best;
}

export function calibrate(examples: readonly CalibrationExample[], lambda = chooseLambda(examples)): CalibratedWeights {
  const questions = {} as Record<SystemOneQuestion, LogisticWeights>;
  const counts = {} as Record<SystemOneQuestion, number>;
  for (const q of SYSTEM_ONE_QUESTIONS) {
    const used = examples.filter((e) => e.labels[q] !== undefined);
    questions[q] = fitLogistic(
      used.map((e) => e.features),
      used.map((e) => e.labels[q]!),
      lambda,
      used.map((e) => e.weight ?? 1),
      NON_POSITIVE[q],
    );
    counts[q] = used.length;
  }
  return { features: [...FEATURE_NAMES], lambda, examples: counts, questions };
}
