import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Judge,
  LITELLM_PRICES_URL,
  PriceRefresher,
  PriceTable,
  judgeConfigFromEnv,
  loadCommittedPrices,
  priceRefreshOptionsFromEnv,
  pricingFrom,
  resetLogprobSupport,
  type PriceRefreshOptions,
} from '@mce/provider-native';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';

/** A local copy of the price file: its answer is set per test; every GET counted. */
let answer: { status: number; body: string; latencyMs?: number } = { status: 200, body: '{}' };
let hits = 0;
let priceUrl = '';
const priceServer = http.createServer((_req, res) => {
  hits++;
  setTimeout(() => {
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  }, answer.latencyMs ?? 0);
});
let llm: ScriptedLLMServer;
beforeAll(async () => {
  await new Promise<void>((resolve) => priceServer.listen(0, '127.0.0.1', resolve));
  priceUrl = `http://127.0.0.1:${(priceServer.address() as { port: number }).port}/model_prices.json`;
  llm = await startScriptedLLMServer();
});
afterAll(async () => {
  priceServer.closeAllConnections();
  await new Promise((resolve) => priceServer.close(resolve));
  await llm.close();
});

const FRESH = JSON.stringify({
  'gpt-4o': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, mode: 'chat' },
  'brand-new-model': { input_cost_per_token: 3e-7, output_cost_per_token: 9e-7, mode: 'chat' },
});

function setup(overrides: Partial<PriceRefreshOptions> = {}) {
  let clock = 1_000_000;
  const table = new PriceTable(loadCommittedPrices, 'committed');
  const refresher = new PriceRefresher(table, {
    enabled: true,
    url: priceUrl,
    ttlMs: 600_000,
    timeoutMs: 2000,
    retryAfterFailureMs: 3_600_000,
    now: () => clock,
    ...overrides,
  }).attach();
  hits = 0;
  return { table, refresher, advance: (ms: number) => (clock += ms), now: () => clock };
}
/** One lookup, then wait for the refresh it may have started. */
async function lookupAndSettle(table: PriceTable, refresher: PriceRefresher, model: string) {
  table.lookup({ requestModel: model });
  await refresher.refreshIfDue();
  return table.lookup({ requestModel: model });
}

describe('run-time price refresh', () => {
  it('fetches at the first lookup, then again only after the TTL', async () => {
    answer = { status: 200, body: FRESH };
    const { table, refresher, advance } = setup();
    expect(table.lookup({ requestModel: 'brand-new-model' }).fallback).toBe(true); // answered from the committed copy
    await refresher.refreshIfDue();
    expect(hits).toBe(1);
    expect(table.source).toBe(priceUrl);
    expect(table.lookup({ requestModel: 'brand-new-model' })).toMatchObject({ fallback: false, prices: { inputCostPerToken: 3e-7 } });
    advance(599_000);
    await lookupAndSettle(table, refresher, 'gpt-4o');
    expect(hits).toBe(1);
    advance(1_000);
    await lookupAndSettle(table, refresher, 'gpt-4o');
    expect(hits).toBe(2);
  });

  it('keeps the loaded table when the fetch fails and tries again an hour later', async () => {
    answer = { status: 500, body: 'down' };
    const { table, refresher, advance, now } = setup();
    const before = await lookupAndSettle(table, refresher, 'gpt-4o-mini');
    expect(hits).toBe(1);
    expect(before.prices.inputCostPerToken).toBe(1.5e-7);
    expect(table.source).toBe('committed');
    expect(refresher.status.lastError).toMatch(/model prices refresh from .* failed: HTTP 500/);
    expect(refresher.status.nextAttemptAt).toBe(now() + 3_600_000);
    answer = { status: 200, body: 'not json' };
    advance(3_599_999);
    await lookupAndSettle(table, refresher, 'gpt-4o-mini');
    expect(hits).toBe(1);
    advance(1);
    await lookupAndSettle(table, refresher, 'gpt-4o-mini');
    expect(hits).toBe(2); // invalid JSON: kept again
    expect(table.source).toBe('committed');
    answer = { status: 200, body: FRESH };
    advance(3_600_000);
    await lookupAndSettle(table, refresher, 'gpt-4o');
    expect(hits).toBe(3);
    expect(table.lookup({ requestModel: 'gpt-4o' }).prices.inputCostPerToken).toBe(1e-6);
  });

  it('does nothing with MODEL_PRICES_REFRESH=false', async () => {
    answer = { status: 200, body: FRESH };
    const options = priceRefreshOptionsFromEnv({ MODEL_PRICES_REFRESH: 'false', MODEL_PRICES_URL: priceUrl });
    const { table, refresher } = setup(options);
    await lookupAndSettle(table, refresher, 'gpt-4o');
    await refresher.fresh();
    expect(hits).toBe(0);
    expect(table.source).toBe('committed');
  });

  it('never makes a computation wait longer than its timeout', async () => {
    answer = { status: 200, body: FRESH, latencyMs: 1500 };
    const { table, refresher } = setup({ timeoutMs: 200 });
    const started = Date.now();
    await refresher.fresh();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(1000);
    expect(table.source).toBe('committed');
    await refresher.refreshIfDue(); // the fetch itself is aborted at the timeout too
    expect(refresher.status.lastError).toMatch(/failed/);
  });

  it('reads its environment variables', () => {
    expect(priceRefreshOptionsFromEnv({})).toMatchObject({ enabled: true, url: LITELLM_PRICES_URL, ttlMs: 86_400_000, timeoutMs: 5000 });
    expect(priceRefreshOptionsFromEnv({ MODEL_PRICES_TTL_SECONDS: '60', MODEL_PRICES_URL: 'http://x' })).toMatchObject({ ttlMs: 60_000, url: 'http://x' });
    expect(() => priceRefreshOptionsFromEnv({ MODEL_PRICES_TTL_SECONDS: 'soon' })).toThrow(/MODEL_PRICES_TTL_SECONDS=soon/);
    expect(() => priceRefreshOptionsFromEnv({ MODEL_PRICES_TIMEOUT_SECONDS: '0' })).toThrow(/MODEL_PRICES_TIMEOUT_SECONDS=0/);
    // A flag reads like the judge's: an unknown value is an error naming the variable, not "on".
    expect(() => priceRefreshOptionsFromEnv({ MODEL_PRICES_REFRESH: 'maybe' })).toThrow('MODEL_PRICES_REFRESH=maybe: expected true or false');
    expect(priceRefreshOptionsFromEnv({ MODEL_PRICES_REFRESH: ' OFF ' }).enabled).toBe(false);
    expect(priceRefreshOptionsFromEnv({ MODEL_PRICES_REFRESH: 'yes' }).enabled).toBe(true);
  });

  it('prices a judgement with the refreshed table', async () => {
    answer = { status: 200, body: FRESH };
    resetLogprobSupport();
    const { table, refresher } = setup();
    llm.setScript([{ text: 'Score: 5', usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }]);
    const judge = new Judge(
      judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: llm.url }),
      { pricing: pricingFrom(() => table), pricesReady: () => refresher.fresh() },
    );
    const result = await judge.score({ rubric: 'r', prompt: 'p' });
    // refreshed gpt-4o: 100·1e-6 + 20·2e-6 (committed: 100·2.5e-6 + 20·1e-5 = 4.5e-4)
    expect(result.usage.costUsd).toBeCloseTo(1.4e-4, 15);
    expect(hits).toBe(1);
  });

  it('prices a call made outside score (hybrid extraction, an endpoint System One) with the refreshed table too', async () => {
    answer = { status: 200, body: FRESH };
    const { table, refresher } = setup();
    const judge = new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: llm.url }), {
      pricing: pricingFrom(() => table),
      pricesReady: () => refresher.fresh(),
    });
    const usage = await judge.evaluationUsage({ promptTokens: 100, completionTokens: 20, totalTokens: 120, cachedPromptTokens: 0 });
    expect(usage.costUsd).toBeCloseTo(1.4e-4, 15);
    expect(hits).toBe(1);
  });
});
