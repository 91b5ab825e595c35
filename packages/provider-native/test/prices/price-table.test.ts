import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  COMMITTED_PRICES_URL,
  GPT_4O_PRICE,
  PriceTable,
  defaultPriceTable,
  loadCommittedPrices,
  pricesFromLiteLLM,
  withoutDateSuffix,
  withoutProviderPrefix,
  type ModelPrice,
} from '../../src/prices/index.js';

const p = (input: number, output: number): ModelPrice => ({ inputCostPerToken: input, outputCostPerToken: output });

/** A table holding gpt-4o (the fallback) and the given prices. */
const tableOf = (entries: Array<[string, ModelPrice]>) => new PriceTable(new Map([['gpt-4o', p(2e-6, 8e-6)], ...entries]));

function table(): PriceTable {
  return tableOf([
    ['resp-model', p(1e-6, 1e-6)],
    ['req-model', p(2e-6, 2e-6)],
    ['openai/custom', p(3e-6, 3e-6)],
    ['dated', p(4e-6, 4e-6)],
    ['vertex_ai/gem', p(5e-6, 5e-6)],
    ['claude-x', p(6e-6, 6e-6)],
  ]);
}

describe('PriceTable.lookup order', () => {
  it('1. takes the response model first', () => {
    const r = table().lookup({ responseModel: 'resp-model', requestModel: 'req-model' });
    expect(r).toEqual({ prices: p(1e-6, 1e-6), key: 'resp-model', matchedBy: 'responseModel', fallback: false, model: 'resp-model' });
  });

  it('2. then the request model, before any transformed response-model name', () => {
    const r = table().lookup({ responseModel: 'dated-2024-08-06', requestModel: 'req-model' });
    expect(r.key).toBe('req-model');
    expect(r.matchedBy).toBe('requestModel');
    expect(r.model).toBe('dated-2024-08-06');
  });

  it('3. then provider/model', () => {
    const r = table().lookup({ responseModel: 'custom', provider: 'openai' });
    expect([r.key, r.matchedBy, r.fallback]).toEqual(['openai/custom', 'providerModel', false]);
    expect(table().lookup({ requestModel: 'gem', provider: 'vertex_ai' }).key).toBe('vertex_ai/gem');
  });

  it.each([
    ['dated-2024-08-06'],
    ['dated-20240806'],
    ['dated-0125'],
    ['dated@20240620'],
    ['dated-09-2025'],
  ])('4. then the name without its date suffix: %s → dated', (model) => {
    const r = table().lookup({ responseModel: model });
    expect([r.key, r.matchedBy, r.fallback, r.prices.inputCostPerToken]).toEqual(['dated', 'undated', false, 4e-6]);
  });

  it('4b. provider/model without the date suffix', () => {
    const r = table().lookup({ responseModel: 'gem-20250101', provider: 'vertex_ai' });
    expect([r.key, r.matchedBy]).toEqual(['vertex_ai/gem', 'undated']);
  });

  it('5. then the name without a provider prefix (and undated)', () => {
    expect(table().lookup({ responseModel: 'openrouter/claude-x' }).key).toBe('claude-x');
    const r = table().lookup({ requestModel: 'anthropic/claude-x-20250101' });
    expect([r.key, r.matchedBy]).toEqual(['claude-x', 'unprefixed']);
  });

  it('6. then an undated alias\'s dated snapshot: the only one, or the latest by 8-digit date, never a guess', () => {
    const t = tableOf([
      ['snap-20250514', p(1e-6, 1e-6)],
      ['multi-20240101', p(2e-6, 2e-6)],
      ['multi-2025-02-01', p(3e-6, 3e-6)],
      ['multi-20241231', p(4e-6, 4e-6)],
      ['short-0125', p(5e-6, 5e-6)],
      ['short-0613', p(6e-6, 6e-6)],
      ['vertex_ai/gem@20240620', p(7e-6, 7e-6)],
      ['both', p(8e-6, 8e-6)],
      ['both-20250101', p(9e-6, 9e-6)],
    ]);
    const match = (q: Parameters<PriceTable['lookup']>[0]) => {
      const r = t.lookup(q);
      return [r.key, r.matchedBy, r.fallback];
    };
    expect(match({ requestModel: 'snap' })).toEqual(['snap-20250514', 'snapshot', false]);
    expect(match({ responseModel: 'multi' })).toEqual(['multi-2025-02-01', 'snapshot', false]);
    expect(match({ responseModel: 'short' })).toEqual(['gpt-4o', 'fallback', true]); // MMDD dates: which is later?
    expect(match({ responseModel: 'gem', provider: 'vertex_ai' })).toEqual(['vertex_ai/gem@20240620', 'snapshot', false]);
    expect(match({ responseModel: 'anthropic/snap' })).toEqual(['snap-20250514', 'snapshot', false]);
    expect(match({ responseModel: 'both' })).toEqual(['both', 'responseModel', false]); // an exact entry comes first
    t.replace(new Map([['snap-20260101', p(1, 1)]]));
    expect(match({ requestModel: 'snap' })).toEqual(['snap-20260101', 'snapshot', false]); // the new entries' snapshots
    // The committed LiteLLM table: the alias a trace reports is priced as its snapshot, not like gpt-4o.
    expect(defaultPriceTable().lookup({ requestModel: 'claude-sonnet-4' })).toMatchObject({ key: 'claude-sonnet-4-20250514', matchedBy: 'snapshot', fallback: false });
  });

  it('every step again with the names lower-cased, then without a cloud vendor\'s prefix; -latest is an undated alias', () => {
    const t = defaultPriceTable();
    const match = (responseModel: string) => {
      const r = t.lookup({ responseModel });
      return [r.key, r.matchedBy, r.model];
    };
    expect(match('GPT-4o-mini')).toEqual(['gpt-4o-mini', 'responseModel', 'GPT-4o-mini']);
    expect(match('anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual(['claude-sonnet-4-5-20250929-v1:0', 'responseModel', 'anthropic.claude-sonnet-4-5-20250929-v1:0']);
    expect(match('us.anthropic.claude-sonnet-4-5-20250929-v1:0')[0]).toBe('claude-sonnet-4-5-20250929-v1:0');
    expect(match('claude-3-7-sonnet-latest')).toEqual(['claude-3-7-sonnet-20250219', 'snapshot', 'claude-3-7-sonnet-latest']);
    expect(match('gpt-5-chat-latest')[0]).toBe('gpt-5-chat-latest'); // a -latest entry of its own comes first
    expect(match('gemini-2.5-pro-latest')).toEqual(['gemini-2.5-pro', 'undated', 'gemini-2.5-pro-latest']);
    expect(match('bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0')[0]).toBe('claude-sonnet-4-5-20250929-v1:0');
    expect(match('gpt-4.1-mini')[0]).toBe('gpt-4.1-mini'); // a version's dot is not a vendor prefix
    expect(match('Mystery.Model')).toEqual(['gpt-4o', 'fallback', 'Mystery.Model']);
  });

  it('7. an unknown model is priced like the table\'s gpt-4o and flagged', () => {
    const r = table().lookup({ responseModel: 'mystery', requestModel: 'mystery-req', provider: 'acme' });
    expect(r).toEqual({ prices: p(2e-6, 8e-6), key: 'gpt-4o', matchedBy: 'fallback', fallback: true, model: 'mystery' });
  });

  it('falls back to the built-in gpt-4o price when the table has no gpt-4o', () => {
    const t = new PriceTable(new Map([['x', p(1, 1)]]));
    const r = t.lookup({});
    expect(r.prices).toEqual({ inputCostPerToken: 2.5e-6, outputCostPerToken: 1e-5, cacheReadCostPerToken: 1.25e-6 });
    expect(r.prices).toBe(GPT_4O_PRICE);
    expect(r.model).toBeUndefined();
    expect(r.fallback).toBe(true);
  });

  it('ignores blank model names', () => {
    const r = table().lookup({ responseModel: '  ', requestModel: 'req-model' });
    expect([r.key, r.model]).toEqual(['req-model', 'req-model']);
  });
});

describe('PriceTable refresh hooks', () => {
  it('replace swaps the entries, bumps the generation and forgets memoised lookups', () => {
    const t = table();
    expect(t.lookup({ responseModel: 'new-model' }).fallback).toBe(true);
    expect(t.generation).toBe(0);
    t.replace(new Map([['new-model', p(7e-6, 7e-6)]]), 'https://example.test/prices.json');
    expect(t.generation).toBe(1);
    expect(t.source).toBe('https://example.test/prices.json');
    expect(t.lookup({ responseModel: 'new-model' })).toMatchObject({ key: 'new-model', fallback: false });
    expect(t.size).toBe(1);
  });

  it('replace refuses an empty table', () => {
    expect(() => table().replace(new Map())).toThrow(/empty/);
  });

  it('a loader runs once, at the first lookup', () => {
    let loads = 0;
    const t = new PriceTable(() => {
      loads += 1;
      return new Map([['m', p(1e-6, 1e-6)]]);
    });
    expect(loads).toBe(0);
    t.lookup({ responseModel: 'm' });
    t.lookup({ responseModel: 'other' });
    expect(t.get('m')).toEqual(p(1e-6, 1e-6));
    expect(loads).toBe(1);
  });

  it('onLookup is told about every lookup, memoised or not, and can be cleared', () => {
    const t = table();
    let calls = 0;
    t.onLookup(() => (calls += 1));
    t.lookup({ responseModel: 'resp-model' });
    t.lookup({ responseModel: 'resp-model' });
    expect(calls).toBe(2);
    t.onLookup(undefined);
    t.lookup({ responseModel: 'resp-model' });
    expect(calls).toBe(2);
  });
});

describe('model names', () => {
  it('strips one date suffix, leaves other names alone', () => {
    expect(withoutDateSuffix('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(withoutDateSuffix('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet');
    expect(withoutDateSuffix('gpt-3.5-turbo-0125')).toBe('gpt-3.5-turbo');
    expect(withoutDateSuffix('gemini-2.5-flash-preview-09-2025')).toBe('gemini-2.5-flash-preview');
    expect(withoutDateSuffix('gpt-4o')).toBeUndefined();
    expect(withoutDateSuffix('gpt-4-0125-preview')).toBeUndefined();
  });
  it('strips a provider prefix', () => {
    expect(withoutProviderPrefix('openai/gpt-4o')).toBe('gpt-4o');
    expect(withoutProviderPrefix('gpt-4o')).toBeUndefined();
    expect(withoutProviderPrefix('openai/')).toBeUndefined();
  });
});

describe('LiteLLM price file', () => {
  it('keeps per-token prices and cache prices, skips entries without an input price and sample_spec', () => {
    const prices = pricesFromLiteLLM({
      sample_spec: { input_cost_per_token: 0 },
      a: { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, cache_read_input_token_cost: 1e-7, cache_creation_input_token_cost: 3e-6, mode: 'chat' },
      embed: { input_cost_per_token: 1e-8, mode: 'embedding' },
      image: { output_cost_per_image: 0.04 },
      broken: { input_cost_per_token: 'cheap' },
    });
    expect([...prices.keys()]).toEqual(['a', 'embed']);
    expect(prices.get('a')).toEqual({ inputCostPerToken: 1e-6, outputCostPerToken: 2e-6, cacheReadCostPerToken: 1e-7, cacheWriteCostPerToken: 3e-6 });
    expect(prices.get('embed')).toEqual({ inputCostPerToken: 1e-8, outputCostPerToken: 0 });
  });

  it('rejects a document that is not a table of prices', () => {
    expect(() => pricesFromLiteLLM([])).toThrow(/JSON object/);
    expect(() => pricesFromLiteLLM({ x: { mode: 'chat' } })).toThrow(/no entry/);
  });

  it('the committed copy sits in the package data folder and prices gpt-4o at its list price', () => {
    expect(fileURLToPath(COMMITTED_PRICES_URL).replaceAll('\\', '/')).toMatch(/packages\/provider-native\/data\/model_prices\.json$/);
    expect(existsSync(COMMITTED_PRICES_URL)).toBe(true);
    const prices = loadCommittedPrices();
    expect(prices.size).toBe(209); // 210 entries, one (audio transcription) without a per-token price
    expect(prices.get('gpt-4o')).toEqual({ inputCostPerToken: 2.5e-6, outputCostPerToken: 1e-5, cacheReadCostPerToken: 1.25e-6 });
    expect(prices.get('claude-sonnet-4-5')).toEqual({
      inputCostPerToken: 3e-6,
      outputCostPerToken: 1.5e-5,
      cacheReadCostPerToken: 3e-7,
      cacheWriteCostPerToken: 3.75e-6,
    });
  });

  it('the shared table answers from the committed copy', () => {
    const t = defaultPriceTable();
    expect(t).toBe(defaultPriceTable());
    expect(t.lookup({ responseModel: 'gpt-4o-2024-08-06' })).toMatchObject({ key: 'gpt-4o-2024-08-06', matchedBy: 'responseModel' });
    expect(t.lookup({ responseModel: 'gpt-4o-2099-01-01' })).toMatchObject({ key: 'gpt-4o', matchedBy: 'undated', fallback: false });
    expect(t.lookup({ responseModel: 'claude-3-5-sonnet-20241022' })).toMatchObject({ key: 'gpt-4o', fallback: true });
  });
});
