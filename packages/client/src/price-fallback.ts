/**
 * The one summary warning of a run that priced LLM calls like gpt-4o (no price table knew their model and their span
 * recorded no cost): the models and how many calls of each, read from the Session-level Cost results. Said by every
 * surface that computes: `mce compute` (stderr and `--json`), the REST API's compute answers, the worker's log.
 */
import type { SessionComputation } from '@mce/core';

export interface PriceFallbackWarning {
  code: 'price-fallback';
  message: string;
  /** Model → LLM calls priced like gpt-4o. */
  models: Record<string, number>;
}

interface ModelTotals {
  model?: unknown;
  calls?: unknown;
  fallback?: unknown;
}

/** The fallback calls per model of these computations, or undefined when none was priced by the fallback. */
export function priceFallbackWarning(computations: readonly SessionComputation[]): PriceFallbackWarning | undefined {
  const models: Record<string, number> = {};
  for (const c of computations) {
    for (const r of c.results) {
      if (r.name !== 'Cost' || r.level !== 'Session') continue;
      const byModel = (r.details?.models ?? {}) as Record<string, ModelTotals>;
      for (const totals of Object.values(byModel)) {
        if (totals.fallback !== true || typeof totals.model !== 'string' || typeof totals.calls !== 'number') continue;
        models[totals.model] = (models[totals.model] ?? 0) + totals.calls;
      }
    }
  }
  const entries = Object.entries(models);
  if (entries.length === 0) return undefined;
  const calls = entries.reduce((n, [, k]) => n + k, 0);
  const listed = entries.map(([model, k]) => `'${model}' (${k} call${k === 1 ? '' : 's'})`).join(', ');
  return {
    code: 'price-fallback',
    message: `${calls} LLM call(s) priced like gpt-4o: no price for ${listed}; their Cost is an estimate at gpt-4o's price`,
    models,
  };
}

/** A computation as an answer: with `warnings` holding the price-fallback warning when it priced calls like gpt-4o. */
export function withPriceWarnings<T extends SessionComputation>(computation: T): T & { warnings?: PriceFallbackWarning[] } {
  const warning = priceFallbackWarning([computation]);
  return warning ? { ...computation, warnings: [warning] } : computation;
}
