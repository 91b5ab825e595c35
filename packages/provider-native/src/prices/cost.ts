import type { ModelPrice } from './model-price.js';

/** The token counts a cost is computed from. Input tokens include the cached ones (read and written). */
export interface CostUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface CostBreakdown {
  /** Input tokens neither read from nor written to the cache, at the input price. */
  uncachedInputCost: number;
  cacheReadCost: number;
  cacheWriteCost: number;
  outputCost: number;
  total: number;
}

function count(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`cost: ${name} must be a finite non-negative number, got ${String(value)}`);
  }
  return value;
}

/**
 * USD cost of one call: (input − cacheRead − cacheWrite)·input + cacheRead·cacheRead price +
 * cacheWrite·cacheWrite price + output·output price; a missing cache price is the input price. When the cached
 * counts exceed the input count, the source reported its input without the cached tokens (Anthropic's
 * `input_tokens`): the input count is then all uncached, and charged at the input price.
 * Throws on a non-finite or negative count rather than returning NaN.
 */
export function costBreakdown(usage: CostUsage, prices: ModelPrice): CostBreakdown {
  const input = count('inputTokens', usage.inputTokens);
  const output = count('outputTokens', usage.outputTokens);
  const cacheRead = count('cacheReadTokens', usage.cacheReadTokens);
  const cacheWrite = count('cacheWriteTokens', usage.cacheWriteTokens);
  const uncached = input >= cacheRead + cacheWrite ? input - cacheRead - cacheWrite : input;
  const uncachedInputCost = uncached * prices.inputCostPerToken;
  const cacheReadCost = cacheRead * (prices.cacheReadCostPerToken ?? prices.inputCostPerToken);
  const cacheWriteCost = cacheWrite * (prices.cacheWriteCostPerToken ?? prices.inputCostPerToken);
  const outputCost = output * prices.outputCostPerToken;
  return {
    uncachedInputCost,
    cacheReadCost,
    cacheWriteCost,
    outputCost,
    total: uncachedInputCost + cacheReadCost + cacheWriteCost + outputCost,
  };
}

/** USD cost of one call (see `costBreakdown`). */
export function costOf(usage: CostUsage, prices: ModelPrice): number {
  return costBreakdown(usage, prices).total;
}
