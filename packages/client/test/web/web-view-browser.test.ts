/**
 * The read-only web view of `mce serve` in real headless Chromium over a PostgreSQL store: the sessions list and its
 * filters (time, service, a Session metric's range), a session's page (the report's components, values as stored),
 * and a trend chart drawn from results stored in three runs. No request leaves the server; no console error.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { MCEClient, defaultMceConfig, listInputFiles, openStore, serveApi, type ApiServer } from '../../src/index.js';
import { formatValue } from '../../src/cli/format.js';
import { PG_URL, needService } from '../../../../test-support/services.js';
import { accessibilityViolations, launchBrowser, needBrowser, screenshotPath } from '../../../../test-support/browser.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const SCHEMA = `mce_web_${process.pid}`;
const pgUp = await needService('postgres');
const hasBrowser = needBrowser();

let client: MCEClient;
let server: ApiServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let base: string;

beforeAll(async () => {
  if (!pgUp || !hasBrowser) return;
  const store = await openStore(PG_URL, { schema: SCHEMA });
  client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
  await client.ingest(await listInputFiles([join(repo, 'examples/sessions'), join(repo, 'examples/traces')]));
  // Three runs, some milliseconds apart: the trend has three periods with results.
  for (const runId of ['run-1', 'run-2', 'run-3']) {
    await client.computeAndStore(['weather-001', 'support-7781', 'dev-assistant-55', 'trip-2026-001'], { runId });
    await new Promise((r) => setTimeout(r, 200));
  }
  server = await serveApi(client, { port: 0 });
  base = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser(base);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await client?.close();
  if (!pgUp) return;
  const admin = new pg.Client(PG_URL);
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await admin.end();
});

async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}${path}`);
  return { page, errors };
}

const sessionsShown = (page: Page) => page.getByRole('table', { name: 'Sessions, newest first' }).locator('tbody th a').allTextContents();

describe.runIf(pgUp && hasBrowser)('the web view on PostgreSQL', () => {
  it('lists the sessions and filters them by service, time and a Session metric’s range', async () => {
    const { page, errors } = await open('/');
    expect(await page.getByRole('heading', { name: 'Sessions', level: 1 }).isVisible()).toBe(true);
    expect((await sessionsShown(page)).sort()).toEqual(['dev-assistant-55', 'support-7781', 'trip-2026-001', 'weather-001']);
    // Filter through the form, as a person would.
    const form = page.getByRole('form', { name: 'Filter sessions' });
    await form.getByLabel('Service').fill('weather-bot');
    await form.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/service=weather-bot/);
    expect(await sessionsShown(page)).toEqual(['weather-001']);
    await form.getByLabel('Service').fill('');
    await form.getByLabel('Session metric').selectOption('Cost');
    await form.getByLabel('Metric at most').fill('0.005');
    await form.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/max=0.005/);
    // support-7781 costs 0.0092556 USD: out; the others are under 0.005.
    expect((await sessionsShown(page)).sort()).toEqual(['dev-assistant-55', 'trip-2026-001', 'weather-001']);
    const weatherCost = page.getByRole('row', { name: /weather-001/ }).locator('td[data-metric="Cost"]');
    expect(await weatherCost.textContent()).toBe('0.0001191');
    await page.screenshot({ path: screenshotPath('web-sessions-filtered.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goto(`${base}/?from=2026-01-01T00:00:00Z`);
    expect(await sessionsShown(page)).not.toContain('trip-2026-001'); // it starts 2025-12-01
    expect(errors).toEqual([]);
    // A bad filter is a 400 page naming it (Chromium logs the status; nothing else).
    const bad = await page.goto(`${base}/?from=yesterday`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toBe('from: not a time: "yesterday" (ISO 8601, e.g. 2026-11-30T08:00:00Z, or epoch milliseconds)');
    expect(browser.blocked).toEqual([]);
    await page.close();
  });

  it('a session page is the report of the stored session: its values are the stored ones', async () => {
    const { page, errors } = await open('/');
    await page.getByRole('link', { name: 'support-7781' }).click();
    await page.waitForURL(/\/view\/sessions\/support-7781$/);
    expect(await page.getByRole('region', { name: 'Session support-7781' }).isVisible()).toBe(true);
    const stored = await client.getMetrics('support-7781', { recursive: true });
    const rows = await page.$$eval('tr[data-metric]', (trs) =>
      trs.map((r) => `${r.getAttribute('data-level')}|${r.getAttribute('data-measures')}|${r.getAttribute('data-metric')}=${r.querySelector('td.num')!.textContent}`),
    );
    // Three runs stored: the newest result of each metric beside its element, once.
    const newest = [...new Set(stored.map((r) => `${r.level}|${r.measures}|${r.name}=${formatValue(r.result)}`))];
    expect(stored.length).toBe(3 * newest.length);
    expect(rows.sort()).toEqual(newest.sort());
    expect(await page.getByText('Failed and skipped metrics are not kept by the store').isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('web-session.png') });
    expect(errors).toEqual([]);
    const missing = await page.goto(`${base}/view/sessions/no-such-session`);
    expect(missing?.status()).toBe(404);
    await page.close();
  });

  it('draws a metric’s trend from the stored summaries, one point per period with results', async () => {
    const { page, errors } = await open('/view/trends');
    await page.getByRole('row', { name: /Duration LLMCall/ }).getByRole('link', { name: 'Duration' }).click();
    await page.waitForURL(/metric=Duration&level=LLMCall/);
    const chart = page.getByRole('img', { name: 'Duration at LLMCall: mean and p95 per period' });
    expect(await chart.isVisible()).toBe(true);
    await page.goto(`${base}/view/trends?metric=Duration&level=LLMCall&buckets=3`);
    // Three runs of the same 15 LLM call durations, in periods cut by the results' timestamps.
    const summary = (await client.summarizeResults({ metrics: ['Duration'], levels: ['LLMCall'] }))[0]!;
    expect(summary.count).toBe(45);
    const table = page.getByRole('table', { name: 'Duration at LLMCall per period' });
    const counts = await table.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(45);
    const dots = await page.locator('svg.chart circle').evaluateAll((cs) => cs.map((c) => ['data-mean', 'data-from', 'data-to'].map((a) => Number(c.getAttribute(a)))));
    expect(dots.length).toBeGreaterThanOrEqual(2);
    // Each point is the store's own summary of its period.
    for (const [mean, from, to] of dots) {
      const [period] = await client.summarizeResults({ metrics: ['Duration'], levels: ['LLMCall'], from: from!, to: to! });
      expect(mean).toBeCloseTo(period!.mean, 9);
    }
    await page.screenshot({ path: screenshotPath('web-trend.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    const bad = await page.goto(`${base}/view/trends?metric=Durration`);
    expect(bad?.status()).toBe(400);
    expect(browser.blocked).toEqual([]);
    await page.close();
  });
});
