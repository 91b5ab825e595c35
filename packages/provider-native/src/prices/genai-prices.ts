/**
 * The second price source: `@pydantic/genai-prices` and its bundled data, for models the LiteLLM table does not
 * hold (Mistral, Fireworks, OpenRouter, Groq, Bedrock and Vertex ids …). Its provider detection is given what the
 * span says of the provider: `gen_ai.provider.name` / `gen_ai.system` (the call's provider) and `server.address`.
 * Only the bundled data is used: nothing is fetched.
 */
import { createRequire } from 'node:module';
import type * as GenaiPrices from '@pydantic/genai-prices';
import type { ModelPrice as GenaiModelPrice, TieredPrices } from '@pydantic/genai-prices';
import type { CostBreakdown, CostUsage } from './cost.js';

/** Where the call went, as far as the span says. */
export interface ProviderHints {
  /** The call's provider (`gen_ai.provider.name`, `gen_ai.system`, `llm.provider` …). */
  provider?: string | undefined;
  /** `server.address` (a host) or a request URL. */
  serverAddress?: string | undefined;
}

export interface GenaiPrice {
  /** `provider/model` ids of the matched entry (`mistral/mistral-small-latest`). */
  key: string;
  /** The model name the entry was found under (after a provider prefix or a router suffix was taken off). */
  matchedName: string;
  price: GenaiModelPrice;
}

type Price = number | TieredPrices | undefined;

/**
 * The library, loaded at its first use (its bundled data takes 0.1–0.4 s to load): a run whose models are all in the
 * LiteLLM table, and every command that prices nothing, never loads it. Its CommonJS build, so the load stays synchronous.
 */
let library: typeof GenaiPrices | undefined;
function genaiPrices(): typeof GenaiPrices {
  return (library ??= createRequire(import.meta.url)('@pydantic/genai-prices') as typeof GenaiPrices);
}
const calcPrice: (typeof GenaiPrices)['calcPrice'] = (...args) => genaiPrices().calcPrice(...args);
const findProvider: (typeof GenaiPrices)['findProvider'] = (...args) => genaiPrices().findProvider(...args);

const USAGE = { input_tokens: 1, output_tokens: 1 };

/** A provider id genai-prices knows for a name (`mistral_ai` → `mistral`, `gcp.vertex_ai` → `google`), if any. */
function providerId(name: string | undefined): string | undefined {
  if (name === undefined || name.trim() === '') return undefined;
  return findProvider({ providerId: name.trim().toLowerCase() })?.id;
}

/** `api.mistral.ai` → `https://api.mistral.ai` (genai-prices matches provider API URLs, not bare hosts). */
function apiUrl(address: string | undefined): string | undefined {
  if (address === undefined || address.trim() === '') return undefined;
  return /^[a-z]+:\/\//i.test(address) ? address : `https://${address}`;
}

/** Providers whose entries match only their own id form (Fireworks: `accounts/fireworks/models/<model>`). */
const OWN_ID_FORM: Record<string, (model: string) => string> = {
  fireworks: (model) => `accounts/fireworks/models/${model}`,
};

/**
 * The names a model may be priced under, most specific first, each with the provider it names:
 * `openai/gpt-oss-20b:fireworks-ai` (a router's `model:provider`) → `gpt-oss-20b` at fireworks;
 * `mistral/mistral-small-latest` → `mistral-small-latest` at mistral; `accounts/fireworks/models/x` as it is (the
 * provider's own id form); the last path segment.
 */
function candidates(model: string, hinted: string | undefined): Array<{ name: string; provider: string | undefined }> {
  // The name as it is, at the provider the span names, then wherever genai-prices' own matching finds it.
  const out: Array<{ name: string; provider: string | undefined }> = [{ name: model, provider: hinted }];
  const ownForm = hinted === undefined ? undefined : OWN_ID_FORM[hinted];
  if (ownForm) out.push({ name: ownForm(model.slice(model.lastIndexOf('/') + 1)), provider: hinted });
  if (hinted !== undefined) out.push({ name: model, provider: undefined });
  const routed = /^(.+):([a-z][a-z0-9_.-]*)$/i.exec(model);
  if (routed && !/:\d+$/.test(model)) {
    const provider = providerId(routed[2]!.replace(/-ai$/, '')) ?? providerId(routed[2]);
    const bare = routed[1]!;
    out.push({ name: bare, provider: provider ?? hinted });
    const last = bare.slice(bare.lastIndexOf('/') + 1);
    if (last !== bare) out.push({ name: last, provider: provider ?? hinted });
    const own = provider && OWN_ID_FORM[provider];
    if (own) out.push({ name: own(last), provider });
  }
  const slash = model.indexOf('/');
  if (slash > 0) {
    const prefixed = providerId(model.slice(0, slash));
    if (prefixed) out.push({ name: model.slice(slash + 1), provider: prefixed });
    const last = model.slice(model.lastIndexOf('/') + 1);
    if (last !== '') out.push({ name: last, provider: hinted });
  }
  return out;
}

/** A four-level map (response model → request model → provider → server): no key string built per lookup. */
type Memo = Map<string, Map<string, Map<string, Map<string, GenaiPrice | null>>>>;

function level<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) map.set(key, (v = make()));
  return v;
}

/** Lookups memoised by model and hints: a run prices the same few models over and over. */
export class GenaiPriceIndex {
  readonly #memo: Memo = new Map();

  /** The entry for a call's response and request models, given what the span says of the provider. */
  lookup(responseModel: string | undefined, requestModel: string | undefined, hints: ProviderHints): GenaiPrice | undefined {
    const byProvider = level(level(this.#memo, responseModel ?? '', () => new Map()), requestModel ?? '', () => new Map());
    const byServer = level(byProvider, hints.provider ?? '', () => new Map());
    let found = byServer.get(hints.serverAddress ?? '');
    if (found === undefined) {
      const names = [responseModel, requestModel].map((m) => m?.trim()).filter((m): m is string => !!m);
      found = (names.length ? this.#find(names, hints) : undefined) ?? null;
      byServer.set(hints.serverAddress ?? '', found);
    }
    return found ?? undefined;
  }

  #find(names: readonly string[], hints: ProviderHints): GenaiPrice | undefined {
    // The server the call went to says more than the client's provider name (the OpenAI client talking to Fireworks).
    const url = apiUrl(hints.serverAddress);
    const hinted = (url === undefined ? undefined : findProvider({ providerApiUrl: url })?.id) ?? providerId(hints.provider);
    for (const model of names) {
      for (const { name, provider } of candidates(model, hinted)) {
        const result = calcPrice(USAGE, name, provider ? { providerId: provider } : {});
        if (result) return { key: `${result.provider.id}/${result.model.id}`, matchedName: name, price: result.model_price };
      }
    }
    return undefined;
  }
}

/** Per-million price of a usage unit; a tiered price is the tier the call's input tokens reach (genai-prices' rule). */
function perMillion(price: Price, inputTokens: number): number | undefined {
  if (price === undefined) return undefined;
  if (typeof price === 'number') return price;
  let value = price.base;
  for (const tier of price.tiers) if (inputTokens > tier.start) value = tier.price;
  return value;
}

/** USD cost of one call at a genai-prices entry, in mce's breakdown (the input price where a cache price is missing). */
export function genaiCostBreakdown(usage: CostUsage, price: GenaiModelPrice): CostBreakdown {
  const input = usage.inputTokens;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const inputRate = perMillion(price.input_mtok as Price, input) ?? 0;
  const rate = (key: string) => (perMillion(price[key] as Price, input) ?? inputRate) / 1e6;
  // Cached counts above the input count: the source reported its input without them (as in costBreakdown).
  const uncached = input >= cacheRead + cacheWrite ? input - cacheRead - cacheWrite : input;
  const uncachedInputCost = (uncached * inputRate) / 1e6;
  const cacheReadCost = cacheRead * rate('cache_read_mtok');
  const cacheWriteCost = cacheWrite * rate('cache_write_mtok');
  const outputCost = (usage.outputTokens * (perMillion(price.output_mtok as Price, input) ?? 0)) / 1e6;
  return { uncachedInputCost, cacheReadCost, cacheWriteCost, outputCost, total: uncachedInputCost + cacheReadCost + cacheWriteCost + outputCost };
}
