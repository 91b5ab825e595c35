/** Per-token USD prices of one model, as mce uses them (a subset of a LiteLLM entry). */
export interface ModelPrice {
  inputCostPerToken: number;
  outputCostPerToken: number;
  /** Price of an input token read from the prompt cache; absent → the input price applies. */
  cacheReadCostPerToken?: number;
  /** Price of an input token written to the prompt cache; absent → the input price applies. */
  cacheWriteCostPerToken?: number;
}

/** gpt-4o's list price: what a model missing from the table is charged (and the last resort if gpt-4o is missing). */
export const FALLBACK_MODEL = 'gpt-4o';
export const GPT_4O_PRICE: ModelPrice = Object.freeze({
  inputCostPerToken: 2.5e-6,
  outputCostPerToken: 1e-5,
  cacheReadCostPerToken: 1.25e-6,
});

function price(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * One entry of LiteLLM's `model_prices_and_context_window.json`, or undefined when it carries no per-token input
 * price (image, audio-transcription entries priced otherwise). A missing output price is 0 (embeddings).
 */
export function modelPriceFromLiteLLM(entry: unknown): ModelPrice | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const raw = entry as Record<string, unknown>;
  const input = price(raw.input_cost_per_token);
  if (input === undefined) return undefined;
  const result: ModelPrice = { inputCostPerToken: input, outputCostPerToken: price(raw.output_cost_per_token) ?? 0 };
  const cacheRead = price(raw.cache_read_input_token_cost);
  const cacheWrite = price(raw.cache_creation_input_token_cost);
  if (cacheRead !== undefined) result.cacheReadCostPerToken = cacheRead;
  if (cacheWrite !== undefined) result.cacheWriteCostPerToken = cacheWrite;
  return result;
}

/**
 * A whole LiteLLM price file → model name → price. Entries without a per-token price are left out; the file's
 * `sample_spec` documentation entry too. Throws when the document is not an object of entries.
 */
export function pricesFromLiteLLM(document: unknown): Map<string, ModelPrice> {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new Error('model prices: expected a JSON object of model name → price entry');
  }
  const prices = new Map<string, ModelPrice>();
  for (const [name, entry] of Object.entries(document)) {
    if (name === 'sample_spec') continue;
    const parsed = modelPriceFromLiteLLM(entry);
    if (parsed) prices.set(name, parsed);
  }
  if (prices.size === 0) throw new Error('model prices: no entry with a per-token price');
  return prices;
}
