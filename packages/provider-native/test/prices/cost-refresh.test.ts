/**
 * The run-time price refresh reaches the deterministic Cost metric in the same run as the judge's pricing: the first
 * batch Cost prices waits for the refresh the shared table starts (bounded by its timeout), as the judge does.
 * This file configures the process-wide table (MODEL_PRICES_*) before anything has used it.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cost, defaultPriceRefresher, pricingFrom } from '../../src/index.js';
import { SessionBuilder, contextFor } from '../support/session-builder.js';

const FETCHED = JSON.stringify({ 'gpt-4o': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, mode: 'chat' } });
let hits = 0;
const server = http.createServer((_req, res) => {
  hits++;
  // Slower than a lookup: a Cost that did not wait would price with the committed table.
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(FETCHED);
  }, 150);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.MODEL_PRICES_REFRESH = 'true';
  process.env.MODEL_PRICES_URL = `http://127.0.0.1:${(server.address() as { port: number }).port}/prices.json`;
  process.env.MODEL_PRICES_TIMEOUT_SECONDS = '5';
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('Cost and the run-time price refresh', () => {
  it('prices the first batch with the fetched table, the same price the judge is charged', async () => {
    const b = new SessionBuilder();
    const c = b.llm({ start: 0, end: 1, requestModel: 'gpt-4o', usage: { inputTokens: 1000, outputTokens: 100 } });
    const [perCall] = await Cost.computeBatch([c], contextFor(b.session, 'LLMCall'));
    // Fetched: 1000·1e-6 + 100·2e-6 (the committed gpt-4o price would give 0.0035).
    expect(perCall).toMatchObject({ value: expect.closeTo(0.0012, 15), details: { source: 'litellm', priceKey: 'gpt-4o' } });
    expect(hits).toBe(1);
    expect(defaultPriceRefresher().status.lastError).toBeUndefined();
    const judgeCost = pricingFrom()('gpt-4o', { promptTokens: 1000, completionTokens: 100, totalTokens: 1100, cachedPromptTokens: 0 });
    expect(judgeCost).toBeCloseTo(0.0012, 15);
    const [session] = await Cost.computeBatch([b.session], contextFor(b.session, 'Session'));
    expect(session).toMatchObject({ value: expect.closeTo(0.0012, 15) });
    expect(hits).toBe(1); // fetched once for the run, not per batch
  });
});
