import { describe, expect, it } from 'vitest';
import { GPT_4O_PRICE, costBreakdown, costOf, type ModelPrice } from '../../src/prices/index.js';

const withCache: ModelPrice = {
  inputCostPerToken: 1e-6,
  outputCostPerToken: 2e-6,
  cacheReadCostPerToken: 1e-7,
  cacheWriteCostPerToken: 1.25e-6,
};
const noCache: ModelPrice = { inputCostPerToken: 1e-6, outputCostPerToken: 2e-6 };

describe('costOf', () => {
  it('prices uncached input, cache reads, cache writes and output separately', () => {
    // 700 uncached·1e-6 = 7e-4; 200 read·1e-7 = 2e-5; 100 written·1.25e-6 = 1.25e-4; 500 out·2e-6 = 1e-3
    const b = costBreakdown({ inputTokens: 1000, cacheReadTokens: 200, cacheWriteTokens: 100, outputTokens: 500 }, withCache);
    expect(b.uncachedInputCost).toBeCloseTo(7e-4, 15);
    expect(b.cacheReadCost).toBeCloseTo(2e-5, 15);
    expect(b.cacheWriteCost).toBeCloseTo(1.25e-4, 15);
    expect(b.outputCost).toBeCloseTo(1e-3, 15);
    expect(b.total).toBeCloseTo(0.001845, 15);
  });

  it('uses the input price where a cache price is missing', () => {
    // (700 + 200 + 100)·1e-6 + 500·2e-6 = 0.002
    expect(costOf({ inputTokens: 1000, cacheReadTokens: 200, cacheWriteTokens: 100, outputTokens: 500 }, noCache)).toBeCloseTo(0.002, 15);
  });

  it('prices gpt-4o: 1000 in + 100 out = 0.0035; with 400 cached reads = 0.003', () => {
    expect(costOf({ inputTokens: 1000, outputTokens: 100 }, GPT_4O_PRICE)).toBeCloseTo(0.0035, 15);
    expect(costOf({ inputTokens: 1000, cacheReadTokens: 400, outputTokens: 100 }, GPT_4O_PRICE)).toBeCloseTo(0.003, 15);
  });

  it('is 0 for no tokens', () => {
    expect(costOf({ inputTokens: 0, outputTokens: 0 }, withCache)).toBe(0);
  });

  it('cached counts above the input count: the input was reported without them, so all of it is uncached', () => {
    // 100 uncached·1e-6 + 300 read·1e-7 = 1e-4 + 3e-5 (Anthropic's input_tokens exclude the cache)
    expect(costOf({ inputTokens: 100, cacheReadTokens: 300, outputTokens: 0 }, withCache)).toBeCloseTo(1.3e-4, 15);
  });

  it('cached counts exactly equal to the input count: the input includes them, so nothing is uncached', () => {
    // 300 in, all 300 read from the cache: 0 uncached, 300 read·1e-7 = 3e-5 (the boundary is inclusive)
    const b = costBreakdown({ inputTokens: 300, cacheReadTokens: 300, outputTokens: 0 }, withCache);
    expect(b.uncachedInputCost).toBe(0);
    expect(b.cacheReadCost).toBeCloseTo(3e-5, 15);
    expect(costOf({ inputTokens: 300, cacheReadTokens: 300, outputTokens: 0 }, withCache)).toBeCloseTo(3e-5, 15);
  });

  it('throws on NaN, infinite or negative counts instead of returning NaN', () => {
    expect(() => costOf({ inputTokens: Number.NaN, outputTokens: 1 }, withCache)).toThrow(/inputTokens/);
    expect(() => costOf({ inputTokens: 1, outputTokens: Infinity }, withCache)).toThrow(/outputTokens/);
    expect(() => costOf({ inputTokens: 1, outputTokens: 1, cacheReadTokens: -1 }, withCache)).toThrow(/cacheReadTokens/);
  });
});
