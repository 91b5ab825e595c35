/**
 * Sums the usage of every LLM call a metric computation makes (samples, retried calls that returned usage,
 * per-tool-call calls) into the seed's evaluation fields, priced once from the summed tokens.
 */
import type { EvaluationUsage } from '@mce/core';

export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the endpoint's prompt cache (priced at the cache-read rate when known). */
  cachedPromptTokens: number;
}

/** USD cost of `usage` for `model`. */
export type Pricing = (model: string, usage: CallUsage) => number;

export function emptyCallUsage(): CallUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedPromptTokens: 0 };
}

export function addCallUsage(a: CallUsage, b: CallUsage): CallUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    cachedPromptTokens: a.cachedPromptTokens + b.cachedPromptTokens,
  };
}

/**
 * An error thrown after LLM calls were made (an unusable reply, say) carries their usage, so that a caller that
 * retries or falls back to another path still counts the calls (every call a computation makes is counted).
 */
export function withUsage<E>(error: E, usage: CallUsage | EvaluationUsage): E {
  if (error instanceof Error) (error as { llmUsage?: CallUsage | EvaluationUsage }).llmUsage = usage;
  return error;
}

/** The usage an error carries (see `withUsage`). */
export function usageOfError(error: unknown): CallUsage | EvaluationUsage | undefined {
  return error instanceof Error ? (error as { llmUsage?: CallUsage | EvaluationUsage }).llmUsage : undefined;
}

export function toEvaluationUsage(model: string, usage: CallUsage, pricing: Pricing): EvaluationUsage {
  return {
    model,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    costUsd: pricing(model, usage),
  };
}

/** Sum of several evaluation usages (same model expected; the first model is kept). */
export function sumEvaluationUsage(usages: readonly EvaluationUsage[]): EvaluationUsage | undefined {
  const [first, ...rest] = usages;
  if (!first) return undefined;
  return rest.reduce(
    (sum, u) => ({
      model: sum.model,
      promptTokens: sum.promptTokens + u.promptTokens,
      completionTokens: sum.completionTokens + u.completionTokens,
      totalTokens: sum.totalTokens + u.totalTokens,
      costUsd: sum.costUsd + u.costUsd,
    }),
    { ...first },
  );
}
