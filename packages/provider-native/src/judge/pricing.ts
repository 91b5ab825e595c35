/** Judge call pricing from a PriceTable (the shared one by default): a model without a price costs like gpt-4o. */
import { costOf } from '../prices/cost.js';
import { defaultPriceTable } from '../prices/committed-prices.js';
import type { PriceTable } from '../prices/price-table.js';
import type { Pricing } from './usage-meter.js';

export function pricingFrom(table: () => PriceTable = defaultPriceTable): Pricing {
  return (model, usage) =>
    costOf(
      { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens, cacheReadTokens: usage.cachedPromptTokens },
      table().lookup({ requestModel: model }).prices,
    );
}
