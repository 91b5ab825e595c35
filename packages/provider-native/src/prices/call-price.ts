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
import { genaiCostBreakdown, GenaiPriceIndex, type GenaiPrice } from './genai-prices.js';
import type { PriceLookup, PriceMatch, PriceTable } from './price-table.js';
import { recordedCost } from './recorded-cost.js';

export type PriceSource = 'litellm' | 'genai-prices' | 'recorded' | 'gpt-4o-fallback';

/** Which entry priced a call: one object per model and entry (shared by all their calls), so a call costs no string. */
export interface PriceIdentity {
  source: PriceSource;
  /** The entry priced with (`gpt-4o`, `mistral/mistral-small-latest`), or the attribute the recorded cost is in. */
  key: string;
  /** How the LiteLLM table found the entry, or the name genai-prices matched. */
  matchedBy: PriceMatch | string;
  fallback: boolean;
  /** The model name the call reported (response model, else request model). */
  model: string | undefined;
}

export interface CallPrice {
  identity: PriceIdentity;
  breakdown: CostBreakdown;
}

/** Identities of the table's lookups (memoised by the table) and of genai-prices' entries (memoised by the index). */
const tableIdentities = new WeakMap<PriceLookup, PriceIdentity>();
const genaiIdentities = new WeakMap<GenaiPrice, PriceIdentity>();

function tableIdentity(lookup: PriceLookup): PriceIdentity {
  let id = tableIdentities.get(lookup);
  if (!id) {
    const source: PriceSource = lookup.fallback ? 'gpt-4o-fallback' : 'litellm';
    tableIdentities.set(lookup, (id = { source, key: lookup.key, matchedBy: lookup.matchedBy, fallback: lookup.fallback, model: lookup.model }));
  }
  return id;
}

function genaiIdentity(found: GenaiPrice, model: string | undefined): PriceIdentity {
  let id = genaiIdentities.get(found);
  if (!id) genaiIdentities.set(found, (id = { source: 'genai-prices', key: found.key, matchedBy: found.matchedName, fallback: false, model }));
  return id;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The server the span says the call went to (genai-prices' provider detection); plain reads, this runs per call. */
function serverOf(attributes: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!attributes) return undefined;
  return text(attributes['server.address']) ?? text(attributes['url.full']) ?? text(attributes['http.url']);
}

/** The provider the span names: the call's (`gen_ai.provider.name`, `llm.provider` …), else `gen_ai.system`. */
function providerOf(call: LLMCall): string | undefined {
  return call.provider ?? text(call.attributes?.['gen_ai.system']);
}

function recorded(call: LLMCall, model: string | undefined): CallPrice | undefined {
  const cost = recordedCost(call.attributes);
  if (!cost) return undefined;
  const input = cost.input ?? 0;
  const output = cost.output ?? 0;
  // Parts that do not add up to the total (a total alone) leave the rest as uncached input: the breakdown sums to it.
  const rest = Math.max(0, cost.total - input - output);
  return {
    identity: { source: 'recorded', key: cost.attribute, matchedBy: 'recorded', fallback: false, model },
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
  if (call.usage.reported === false) return recorded(call, modelOf(call));
  const lookup = table.lookupModel(call.responseModel, call.requestModel, call.provider);
  if (!lookup.fallback) return { identity: tableIdentity(lookup), breakdown: costBreakdown(usage, lookup.prices) };
  const found = genai.lookup(call.responseModel, call.requestModel, { provider: providerOf(call), serverAddress: serverOf(call.attributes) });
  if (found) return { identity: genaiIdentity(found, modelOf(call)), breakdown: genaiCostBreakdown(usage, found.price) };
  return recorded(call, modelOf(call)) ?? { identity: tableIdentity(lookup), breakdown: costBreakdown(usage, lookup.prices) };
}

/** The model name a call reported: response model, else request model. */
function modelOf(call: LLMCall): string | undefined {
  return call.responseModel?.trim() || call.requestModel?.trim() || undefined;
}
