/**
 * Judge call pricing from a PriceTable (the shared one by default), then genai-prices' bundled data; a model neither
 * knows costs like gpt-4o.
 */
import { defaultGenaiIndex } from '../prices/call-price.js';
import { costOf } from '../prices/cost.js';
import { defaultPriceTable } from '../prices/committed-prices.js';
import { genaiCostBreakdown } from '../prices/genai-prices.js';
import type { PriceTable } from '../prices/price-table.js';
import type { Pricing } from './usage-meter.js';

export function pricingFrom(table: () => PriceTable = defaultPriceTable): Pricing {
  return (model, usage) => {
    const counts = { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens, cacheReadTokens: usage.cachedPromptTokens };
    const lookup = table().lookup({ requestModel: model });
    const genai = lookup.fallback ? defaultGenaiIndex().lookup(undefined, model, {}) : undefined;
    return genai ? genaiCostBreakdown(counts, genai.price).total : costOf(counts, lookup.prices);
  };
}
