import { FALLBACK_MODEL, GPT_4O_PRICE, type ModelPrice } from './model-price.js';
import { withoutDateSuffix, withoutProviderPrefix } from './model-name.js';

/** What identifies the model of an LLM call. */
export interface ModelQuery {
  responseModel?: string | undefined;
  requestModel?: string | undefined;
  /** `gen_ai.provider.name` / `gen_ai.system`, used for `provider/model` keys. */
  provider?: string | undefined;
}

/** Which lookup step found the price. */
export type PriceMatch = 'responseModel' | 'requestModel' | 'providerModel' | 'undated' | 'unprefixed' | 'snapshot' | 'fallback';

export interface PriceLookup {
  prices: ModelPrice;
  /** The table key whose price is used (`gpt-4o` for a fallback, or the built-in gpt-4o price if absent). */
  key: string;
  matchedBy: PriceMatch;
  /** true when the model had no price and is charged like gpt-4o. */
  fallback: boolean;
  /** The model name the call reported (response model, else request model). */
  model: string | undefined;
}

/** Produces the entries of a table; called once, at the first lookup (lazy loading of the committed file). */
export type PriceLoader = () => ReadonlyMap<string, ModelPrice>;

/**
 * Model name → per-token price, with the lookup order mce uses:
 * 1. the response model, 2. the request model, 3. `provider/model` (response, then request),
 * 4. those names without a date suffix (`gpt-4o-2024-08-06` → `gpt-4o`), 5. the name without a provider prefix
 * (`openai/gpt-4o` → `gpt-4o`, then undated), 6. an undated alias's dated snapshot, when the table has only dated
 * entries for it (`claude-sonnet-4` → `claude-sonnet-4-20250514`; of several, the latest by an 8-digit date), else
 * 7. gpt-4o's price with `fallback: true`.
 *
 * The entries can be swapped at run time with `replace` (a refresher fetching a newer LiteLLM file) and a hook can be
 * told about each lookup (`onLookup`, so a refresher can start at the first lookup and after its TTL) — lookups stay
 * synchronous and always answer from the entries currently loaded.
 */
export class PriceTable {
  #entries: ReadonlyMap<string, ModelPrice> | undefined;
  #loader: PriceLoader | undefined;
  #source: string;
  #generation = 0;
  #lookupHook: (() => void) | undefined;
  /**
   * Memo of lookups by response model → request model → provider (nested maps: no key string to build per call);
   * LLM calls of a run repeat the same few models. Cleared by `replace`.
   */
  readonly #memo = new Map<string, Map<string, Map<string, PriceLookup>>>();
  /** Undated name → the dated keys of the entries (built at the first lookup that needs it). Cleared by `replace`. */
  #snapshots: Map<string, string[]> | undefined;

  constructor(entries: ReadonlyMap<string, ModelPrice> | PriceLoader, source = 'in-memory') {
    if (typeof entries === 'function') this.#loader = entries;
    else this.#entries = entries;
    this.#source = source;
  }

  /** Where the current entries came from (a file name, a URL, `in-memory`). */
  get source(): string {
    return this.#source;
  }
  /** Increases on every `replace`: results memoised against a table can check it. */
  get generation(): number {
    return this.#generation;
  }
  get size(): number {
    return this.#load().size;
  }

  /** The exact entry for a key, if any. */
  get(key: string): ModelPrice | undefined {
    return this.#load().get(key);
  }

  /** Swaps in new entries (e.g. a fresher LiteLLM table). Lookups after this call use them. */
  replace(entries: ReadonlyMap<string, ModelPrice>, source = this.#source): void {
    if (entries.size === 0) throw new Error('PriceTable.replace: refusing an empty price table');
    this.#entries = entries;
    this.#loader = undefined;
    this.#source = source;
    this.#generation += 1;
    this.#memo.clear();
    this.#snapshots = undefined;
  }

  /** Registers (or clears) a function called at every lookup, before it is answered. It must not throw or block. */
  onLookup(hook: (() => void) | undefined): void {
    this.#lookupHook = hook;
  }

  lookup(query: ModelQuery): PriceLookup {
    return this.lookupModel(query.responseModel, query.requestModel, query.provider);
  }

  /** `lookup` with the three names as arguments (no query object per call on hot paths). */
  lookupModel(responseModel?: string, requestModel?: string, provider?: string): PriceLookup {
    this.#lookupHook?.();
    const response = responseModel ?? '';
    const request = requestModel ?? '';
    const prov = provider ?? '';
    let byRequest = this.#memo.get(response);
    if (!byRequest) this.#memo.set(response, (byRequest = new Map()));
    let byProvider = byRequest.get(request);
    if (!byProvider) byRequest.set(request, (byProvider = new Map()));
    let found = byProvider.get(prov);
    if (!found) byProvider.set(prov, (found = this.#find({ responseModel, requestModel, provider })));
    return found;
  }

  #load(): ReadonlyMap<string, ModelPrice> {
    if (!this.#entries) {
      const loader = this.#loader;
      if (!loader) throw new Error('PriceTable: no entries and no loader');
      this.#entries = loader();
      this.#loader = undefined;
    }
    return this.#entries;
  }

  /** The dated entry an undated `alias` stands for (see `latestSnapshot`), when the table has no entry of that name. */
  #snapshotOf(alias: string): string | undefined {
    if (this.#snapshots === undefined) {
      const snapshots = new Map<string, string[]>();
      for (const key of this.#load().keys()) {
        const undated = withoutDateSuffix(key);
        if (undated === undefined) continue;
        const keys = snapshots.get(undated);
        if (keys) keys.push(key);
        else snapshots.set(undated, [key]);
      }
      this.#snapshots = snapshots;
    }
    const keys = this.#snapshots.get(alias);
    return keys && latestSnapshot(keys);
  }

  #find(query: ModelQuery): PriceLookup {
    const response = nonEmpty(query.responseModel);
    const request = nonEmpty(query.requestModel);
    const provider = nonEmpty(query.provider);
    const model = response ?? request;
    // The names as reported, then lower-cased (`GPT-4o-mini`), then without a cloud vendor's prefix
    // (`us.anthropic.claude-…` on Bedrock): each variant goes through every step before the next is tried.
    const variants: Array<[string | undefined, string | undefined]> = [[response, request]];
    const lower = (n: string | undefined) => n?.toLowerCase();
    if (lower(response) !== response || lower(request) !== request) variants.push([lower(response), lower(request)]);
    const unvendored = (n: string | undefined) => {
      if (n === undefined) return undefined;
      const lowered = n.toLowerCase();
      return withoutVendorPrefix(lowered) ?? withoutVendorPrefix(withoutProviderPrefix(lowered) ?? '');
    };
    if (unvendored(response) !== undefined || unvendored(request) !== undefined) {
      variants.push([unvendored(response) ?? lower(response), unvendored(request) ?? lower(request)]);
    }
    for (const [r, q] of variants) {
      const found = this.#findNames(r, q, provider, model);
      if (found) return found;
    }
    const gpt4o = this.#load().get(FALLBACK_MODEL);
    return { prices: gpt4o ?? GPT_4O_PRICE, key: FALLBACK_MODEL, matchedBy: 'fallback', fallback: true, model };
  }

  #findNames(response: string | undefined, request: string | undefined, provider: string | undefined, model: string | undefined): PriceLookup | undefined {
    const entries = this.#load();
    const names = [response, request].filter((n): n is string => n !== undefined);
    const hit = (key: string | undefined, matchedBy: PriceMatch): PriceLookup | undefined => {
      if (key === undefined) return undefined;
      const prices = entries.get(key);
      return prices ? { prices, key, matchedBy, fallback: false, model } : undefined;
    };

    const steps: Array<[string | undefined, PriceMatch]> = [
      [response, 'responseModel'],
      [request, 'requestModel'],
      ...names.map((n): [string | undefined, PriceMatch] => [provider && `${provider}/${n}`, 'providerModel']),
      ...names.map((n): [string | undefined, PriceMatch] => [withoutDateSuffix(n), 'undated']),
      ...names.map((n): [string | undefined, PriceMatch] => [
        provider && withoutDateSuffix(n) && `${provider}/${withoutDateSuffix(n)}`,
        'undated',
      ]),
      ...names.flatMap((n): Array<[string | undefined, PriceMatch]> => {
        const bare = withoutProviderPrefix(n);
        return [
          [bare, 'unprefixed'],
          [bare && withoutDateSuffix(bare), 'unprefixed'],
        ];
      }),
    ];
    for (const [key, matchedBy] of steps) {
      const found = hit(key, matchedBy);
      if (found) return found;
    }
    for (const n of names) {
      // `-latest` names the current model: its own entry (`gemini-2.5-pro-latest` → `gemini-2.5-pro`), else the
      // newest snapshot (`claude-3-7-sonnet-latest` → `claude-3-7-sonnet-20250219`).
      const base = n.endsWith(LATEST) ? n.slice(0, -LATEST.length) : n;
      if (base !== n) {
        const found = hit(base, 'undated') ?? hit(provider && `${provider}/${base}`, 'undated');
        if (found) return found;
      }
      for (const alias of [provider && `${provider}/${base}`, base, withoutProviderPrefix(base)]) {
        const found = hit(alias === undefined ? undefined : this.#snapshotOf(alias), 'snapshot');
        if (found) return found;
      }
    }
    return undefined;
  }
}

const LATEST = '-latest';

/**
 * `us.anthropic.claude-…` / `anthropic.claude-…` → `claude-…`: Bedrock's vendor prefix (and cross-region inference
 * profile) before the model name; undefined when there is none. A dot between digits is a version (`gpt-4.1`), not a
 * prefix.
 */
function withoutVendorPrefix(model: string): string | undefined {
  const match = /^(?:(?:us|eu|apac|au|ca|jp|global|us-gov)\.)?[a-z][a-z0-9-]*\.(?=[a-z])/.exec(model);
  return match ? model.slice(match[0].length) : undefined;
}

/**
 * The dated key an undated alias stands for: its only dated entry, or of several the latest when every one ends in an
 * 8-digit date (`-20250514`, `-2025-05-14`, `@20250514`); undefined when the choice would be a guess.
 */
function latestSnapshot(keys: readonly string[]): string | undefined {
  if (keys.length === 1) return keys[0];
  const dated = keys.map((key) => ({ key, date: /(\d{4})-?(\d{2})-?(\d{2})$/.exec(key)?.slice(1).join('') }));
  if (dated.some((d) => d.date === undefined)) return undefined;
  return dated.reduce((a, b) => ((b.date as string) > (a.date as string) ? b : a)).key;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
