/**
 * Run-time refresh of a PriceTable from LiteLLM's published price file: at the first lookup and every
 * MODEL_PRICES_TTL_SECONDS after a success; after a failure the loaded table stays and the next try is an hour later.
 * MODEL_PRICES_REFRESH=false turns it off; MODEL_PRICES_URL points at another copy. Lookups never wait for it:
 * a sync lookup only starts it, and an async caller waits at most MODEL_PRICES_TIMEOUT_SECONDS (`fresh()`).
 */
import { envFlag, envNumber, envText, type Env } from '../judge/config.js';
import { pricesFromLiteLLM, type ModelPrice } from './model-price.js';
import type { PriceTable } from './price-table.js';

export const LITELLM_PRICES_URL =
  'https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json';
const HOUR_MS = 3_600_000;

export interface PriceRefreshOptions {
  /** MODEL_PRICES_REFRESH (default true). */
  enabled: boolean;
  /** MODEL_PRICES_URL (default LiteLLM's file on GitHub). */
  url: string;
  /** MODEL_PRICES_TTL_SECONDS (default 86400): age after which a fetched table is fetched again. */
  ttlMs: number;
  /** MODEL_PRICES_TIMEOUT_SECONDS (default 5): longest a fetch runs, and longest `fresh()` waits. */
  timeoutMs: number;
  /** Wait after a failed fetch (one hour). */
  retryAfterFailureMs: number;
  /** Clock (tests). */
  now?: () => number;
  fetch?: typeof fetch;
}

/** A duration variable in seconds, as milliseconds; a value that is not a positive number throws naming it. */
function seconds(env: Env, name: string, fallback: number): number {
  return (envNumber(env, name, { min: 0.001 }) ?? fallback) * 1000;
}

/** Invalid values throw naming the variable (MODEL_PRICES_REFRESH=maybe is an error, not "on"). */
export function priceRefreshOptionsFromEnv(env: Env = process.env): PriceRefreshOptions {
  return {
    enabled: envFlag(env, 'MODEL_PRICES_REFRESH') ?? true,
    url: envText(env, 'MODEL_PRICES_URL') ?? LITELLM_PRICES_URL,
    ttlMs: seconds(env, 'MODEL_PRICES_TTL_SECONDS', 86_400),
    timeoutMs: seconds(env, 'MODEL_PRICES_TIMEOUT_SECONDS', 5),
    retryAfterFailureMs: HOUR_MS,
  };
}

export interface FetchedPrices {
  /** The file as published (the build-time download writes it, trimmed). */
  document: unknown;
  prices: Map<string, ModelPrice>;
}

/**
 * Fetches a LiteLLM price file and validates it: a 2xx answer within the timeout, JSON, an object with at least one
 * per-token price. The run-time refresh and the build-time download (scripts/update-model-prices.mjs) both use it.
 */
export async function fetchLiteLLMPrices(url: string, timeoutMs: number, fetchFn: typeof fetch = fetch): Promise<FetchedPrices> {
  const response = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const document: unknown = await response.json();
  return { document, prices: pricesFromLiteLLM(document) };
}

export interface PriceRefreshStatus {
  attempts: number;
  lastSuccessAt?: number;
  lastError?: string;
  /** When the next fetch may start (epoch ms); 0 = at the next lookup. */
  nextAttemptAt: number;
}

export class PriceRefresher {
  readonly status: PriceRefreshStatus = { attempts: 0, nextAttemptAt: 0 };
  #inFlight: Promise<void> | undefined;

  constructor(
    readonly table: PriceTable,
    readonly options: PriceRefreshOptions,
  ) {}

  #now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Makes every lookup on the table start a refresh when one is due. */
  attach(): this {
    // Checked inline: lookups come by the ten thousand per session, and refreshIfDue() allocates a promise each time.
    if (this.options.enabled) {
      this.table.onLookup(() => {
        if (!this.#inFlight && this.#now() >= this.status.nextAttemptAt) void this.refreshIfDue();
      });
    }
    return this;
  }

  /** Starts a fetch when due (never two at once); the promise settles when it is done and never rejects. */
  refreshIfDue(): Promise<void> {
    if (!this.options.enabled) return Promise.resolve();
    if (this.#inFlight) return this.#inFlight;
    if (this.#now() < this.status.nextAttemptAt) return Promise.resolve();
    this.#inFlight = this.#refresh().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  /** Waits for a due refresh, at most the timeout: pricing after this uses the freshest table available in time. */
  async fresh(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.timeoutMs);
      timer.unref();
    });
    await Promise.race([this.refreshIfDue(), timeout]);
    clearTimeout(timer);
  }

  async #refresh(): Promise<void> {
    this.status.attempts += 1;
    try {
      const { prices } = await fetchLiteLLMPrices(this.options.url, this.options.timeoutMs, this.options.fetch);
      this.table.replace(prices, this.options.url);
      this.status.lastSuccessAt = this.#now();
      delete this.status.lastError;
      this.status.nextAttemptAt = this.#now() + this.options.ttlMs;
    } catch (error) {
      // Keep the table already loaded (committed copy or last fetched); try again in an hour.
      this.status.lastError = `model prices refresh from ${this.options.url} failed: ${error instanceof Error ? error.message : String(error)}`;
      this.status.nextAttemptAt = this.#now() + this.options.retryAfterFailureMs;
    }
  }
}
