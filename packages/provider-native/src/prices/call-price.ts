/**
 * The price of one LLM call, from the first source that has one:
 * 1. the LiteLLM table (committed copy, refreshed at run time: price-table.ts),
 * 2. `@pydantic/genai-prices`' bundled data (genai-prices.ts), with the provider the span names,
 * 3. the cost the framework recorded on the span (recorded-cost.ts),
 * 4. gpt-4o's price (the seed's rule), flagged as a fallback.
 * A call whose trace records no token count (`usage.reported === false`) has only source 3: without it, no price.
 */
import type { LLMCall } from '@mce/core';
import { costBreakdown, type CostBreakdown, type CostUsage } from './cost.js';
import { genaiCostBreakdown, GenaiPriceIndex, type ProviderHints } from './genai-prices.js';
import type { PriceMatch, PriceTable } from './price-table.js';
import { recordedCost } from './recorded-cost.js';

export type PriceSource = 'litellm' | 'genai-prices' | 'recorded' | 'gpt-4o-fallback';

export interface CallPrice {
  source: PriceSource;
  /** The entry priced with (`gpt-4o`, `mistral/mistral-small-latest`), or the attribute the recorded cost is in. */
  key: string;
  /** How the LiteLLM table found the entry, or the name genai-prices matched. */
  matchedBy: PriceMatch | string;
  fallback: boolean;
  /** The model name the call reported (response model, else request model). */
  model: string | undefined;
  breakdown: CostBreakdown;
}

/** Where the span says the call went (genai-prices' provider detection). */
function hintsOf(call: LLMCall): ProviderHints {
  const a = call.attributes ?? {};
  const address = [a['server.address'], a['url.full'], a['http.url']].find((v): v is string => typeof v === 'string' && v !== '');
  const system = typeof a['gen_ai.system'] === 'string' ? a['gen_ai.system'] : undefined;
  return { provider: call.provider ?? system, serverAddress: address };
}

function recorded(call: LLMCall, model: string | undefined): CallPrice | undefined {
  const cost = recordedCost(call.attributes);
  if (!cost) return undefined;
  const input = cost.input ?? 0;
  const output = cost.output ?? 0;
  // Parts that do not add up to the total (a total alone) leave the rest as uncached input: the breakdown sums to it.
  const rest = Math.max(0, cost.total - input - output);
  return {
    source: 'recorded',
    key: cost.attribute,
    matchedBy: 'recorded',
    fallback: false,
    model,
    breakdown: { uncachedInputCost: input + rest, cacheReadCost: 0, cacheWriteCost: 0, outputCost: output, total: cost.total },
  };
}

let sharedIndex: GenaiPriceIndex | undefined;
/** The process-wide genai-prices lookup memo. */
export function defaultGenaiIndex(): GenaiPriceIndex {
  return (sharedIndex ??= new GenaiPriceIndex());
}

/**
 * The call's price from the first source that has one (see above), or undefined for a call without usage and without
 * a recorded cost. `usage` is the call's counts, already checked; throws nothing else.
 */
export function priceCall(call: LLMCall, usage: CostUsage, table: PriceTable, genai: GenaiPriceIndex = defaultGenaiIndex()): CallPrice | undefined {
  const model = call.responseModel?.trim() || call.requestModel?.trim() || undefined;
  if (call.usage.reported === false) return recorded(call, model);
  const lookup = table.lookupModel(call.responseModel, call.requestModel, call.provider);
  if (!lookup.fallback) {
    return { source: 'litellm', key: lookup.key, matchedBy: lookup.matchedBy, fallback: false, model, breakdown: costBreakdown(usage, lookup.prices) };
  }
  const found = genai.lookup([call.responseModel, call.requestModel], hintsOf(call));
  if (found) {
    return { source: 'genai-prices', key: found.key, matchedBy: found.matchedName, fallback: false, model, breakdown: genaiCostBreakdown(usage, found.price) };
  }
  return (
    recorded(call, model) ?? {
      source: 'gpt-4o-fallback',
      key: lookup.key,
      matchedBy: 'fallback',
      fallback: true,
      model,
      breakdown: costBreakdown(usage, lookup.prices),
    }
  );
}
