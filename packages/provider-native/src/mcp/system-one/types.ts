/**
 * The System One model: a fast classifier that answers fixed questions about an MCP interaction on a four-level
 * scale (0 = clearly not, 1, 2, 3 = clearly yes), mapped onto 0, 1/3, 2/3, 1.
 */
import type { EvaluationUsage } from '@mce/core';
import type { MCPInteraction } from '../interaction.js';

export const SYSTEM_ONE_QUESTIONS = ['primitives', 'arguments', 'task'] as const;
/** primitives: were the right primitives chosen (none better missed, none needless); arguments: were the
 * arguments correct (types, structure, required fields, grounded values); task: did the calls serve the request. */
export type SystemOneQuestion = (typeof SYSTEM_ONE_QUESTIONS)[number];

export const QUESTION_TEXT: Record<SystemOneQuestion, string> = {
  primitives: 'Were the right MCP primitives chosen, with no better one missed and no needless call?',
  arguments: 'Were the arguments of the MCP calls correct: types, structure, required fields, values grounded in the request?',
  task: "Did the MCP calls and the reply serve the user's request?",
};

export type Level = 0 | 1 | 2 | 3;
export const LEVEL_VALUES = [0, 1 / 3, 2 / 3, 1] as const;

export interface SystemOneAnswer {
  question: SystemOneQuestion;
  /** Probabilities of levels 0..3 (sum 1). */
  probabilities: [number, number, number, number];
  /** The most probable level. */
  level: Level;
  /** Probability of the chosen level. */
  confidence: number;
  /** The expected level under the probabilities, in [0, 1]. */
  value: number;
}

export interface SystemOneRequest {
  signal?: AbortSignal;
  interaction: MCPInteraction;
  questions: readonly SystemOneQuestion[];
  /** Extra text about what was asked / done (hybrid mode: what the LLM extracted). */
  extracted?: string;
  /** Ask for the evidence behind the answers (verbose mode). */
  explain?: boolean;
}

export interface SystemOneResult {
  answers: SystemOneAnswer[];
  /** Model id, e.g. `local` or `endpoint:gpt-4o-mini`. */
  model: string;
  /** LLM usage when the model is a remote endpoint. */
  usage?: EvaluationUsage;
  /** False when the endpoint's replies carried no usage (the counts above are then 0, not known). */
  usageReported?: boolean;
  /** When asked to explain: the signals the answers rest on (the local model's non-zero features). */
  evidence?: Record<string, number>;
}

export interface SystemOneModel {
  readonly id: string;
  answer(request: SystemOneRequest): Promise<SystemOneResult>;
}

/** Build an answer from level probabilities (normalised here). */
export function answerFrom(question: SystemOneQuestion, probs: readonly number[]): SystemOneAnswer {
  const total = probs.reduce((a, b) => a + b, 0);
  // Already a distribution (up to rounding): kept as given, so hand-written probabilities stay exact.
  const scale = Math.abs(total - 1) < 1e-9 ? 1 : total;
  const p = [0, 1, 2, 3].map((i) => (scale > 0 ? (probs[i] ?? 0) / scale : 0.25)) as [number, number, number, number];
  let level: Level = 0;
  for (const l of [1, 2, 3] as const) if (p[l] > p[level]) level = l;
  const value = (p[1] + 2 * p[2] + 3 * p[3]) / 3;
  return { question, probabilities: p, level, confidence: p[level], value };
}

export const LEVEL_NAMES = ['no', 'mostly no', 'mostly yes', 'yes'] as const;
