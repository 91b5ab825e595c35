import { readFileSync } from 'node:fs';
import { pricesFromLiteLLM, type ModelPrice } from './model-price.js';
import { PriceTable } from './price-table.js';
import { PriceRefresher, priceRefreshOptionsFromEnv } from './refresh.js';

/** The price file committed in the package; the same relative path from `src/prices` and `dist/prices`. */
export const COMMITTED_PRICES_URL = new URL('../../data/model_prices.json', import.meta.url);

/** Reads and parses the committed LiteLLM price table. */
export function loadCommittedPrices(): Map<string, ModelPrice> {
  return pricesFromLiteLLM(JSON.parse(readFileSync(COMMITTED_PRICES_URL, 'utf8')));
}

let shared: PriceTable | undefined;
let sharedRefresher: PriceRefresher | undefined;

/**
 * The process-wide table the Cost metric (and the judge) price with: the committed file, read at the first lookup.
 * A run-time refresher updates it in place with `replace` / `onLookup`.
 */
export function defaultPriceTable(): PriceTable {
  if (!shared) {
    shared = new PriceTable(loadCommittedPrices, 'model_prices.json');
    // Refreshed from LiteLLM at the first lookup and after its TTL (MODEL_PRICES_*; see refresh.ts).
    sharedRefresher = new PriceRefresher(shared, priceRefreshOptionsFromEnv(process.env)).attach();
  }
  return shared;
}

/** The run-time refresher of the default table (the judge awaits `fresh()` before pricing, bounded by its timeout). */
export function defaultPriceRefresher(): PriceRefresher {
  defaultPriceTable();
  return sharedRefresher as PriceRefresher;
}
