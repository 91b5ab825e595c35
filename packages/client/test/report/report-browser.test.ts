/**
 * `mce report` in real headless Chromium: the report of the example sessions, of a real ClickHouse fixture and of a
 * 10,000-span synthetic session opens from file with no network and no console error; its parts are found by role
 * and text; every value shown is the one `mce compute --json` prints; the timeline is in start order; the tree works
 * from the keyboard. Screenshots go to .screenshots/ (git-ignored, kept by CI).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { SessionComputation } from '@mce/core';
import { accessibilityViolations, launchBrowser, needBrowser, screenshotPath } from '../../../../test-support/browser.js';
import { formatValue } from '../../src/cli/format.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const example = (p: string) => join(repo, 'examples', p);
const fixture = (p: string) => fileURLToPath(new URL(`../../../ingest/test/data/fixtures/clickhouse-otel-traces/${p}`, import.meta.url));

const hasBrowser = needBrowser();
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** The report and `compute --json` of the same input, both through the CLI. */
async function reportOf(inputs: string[]): Promise<{ file: string; computations: SessionComputation[] }> {
  const ws = tempWorkspace();
  const file = join(ws.dir, 'report.html');
  const made = await runCli(['report', '--input', ...inputs, '-o', file], ws);
  expect(made.code, made.stderr).toBe(0);
  const computed = await runCli(['compute', '--input', ...inputs, '--no-store', '--json'], ws);
  return { file, computations: computed.json<{ sessions: SessionComputation[] }>().sessions };
}

/** Opens a file and collects what the page logged as errors. */
async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(file).href);
  return { page, errors };
}

/** Every result row of the page: metric, level, element and the value shown. */
function shownResults(page: Page) {
  return page.$$eval('tr[data-metric]', (rows) =>
    rows.map((r) => ({ key: `${r.getAttribute('data-level')}|${r.getAttribute('data-measures')}|${r.getAttribute('data-metric')}`, shown: r.querySelector('td.num')!.textContent })),
  );
}

/** Whether each list of siblings of the tree is in start order. */
function treeInStartOrder(page: Page) {
  return page.$$eval('ul.tree, ul.tree ul', (lists) =>
    lists.every((ul) => {
      const starts = [...ul.children].map((li) => Number(li.getAttribute('data-start')));
      return starts.every((s, i) => i === 0 || s >= starts[i - 1]!);
    }),
  );
}

describe.runIf(hasBrowser)('mce report in Chromium', () => {
  it('the example sessions: no network, no console error, every value as computed, the timeline in start order', async () => {
    const { file, computations } = await reportOf([example('sessions'), example('traces')]);
    const { page, errors } = await open(file);
    expect(await page.title()).toBe('mce report: 4 sessions');
    for (const c of computations) {
      const region = page.getByRole('region', { name: `Session ${c.sessionId}` });
      await expect.poll(() => region.isVisible()).toBe(true);
      expect(await region.getByRole('table', { name: 'Session metrics' }).isVisible()).toBe(true);
    }
    // Each result of each session, once, with the value `compute --json` printed.
    const expected = computations.flatMap((c) => c.results.map((r) => ({ key: `${r.level}|${r.measures}|${r.name}`, shown: formatValue(r.result) })));
    const shown = await shownResults(page);
    expect(shown.sort((a, b) => a.key.localeCompare(b.key))).toEqual(expected.sort((a, b) => a.key.localeCompare(b.key)));
    expect(await treeInStartOrder(page)).toBe(true);
    // The support session: its failed tool call and the cost by model.
    const support = page.getByRole('region', { name: 'Session support-7781' });
    const byModel = support.getByRole('table', { name: 'Cost by model' });
    expect(await byModel.getByRole('row', { name: /claude-sonnet-4 3 6960 72/ }).isVisible()).toBe(true);
    const refund = support.getByText('error RefundFailed: payment provider rejected the refund').first();
    await refund.scrollIntoViewIfNeeded(); // off-screen rows are not rendered (content-visibility) until scrolled to
    expect(await refund.isVisible()).toBe(true);
    expect(await support.getByText('None failed.').isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('report-examples.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    expect(browser.blocked).toEqual([]);
    await page.close();
  });

  it('the tree opens and closes from the keyboard, and the results table of a call from its toggle', async () => {
    const { file } = await reportOf([example('sessions/single-agent-tool.json')]);
    const { page } = await open(file);
    const first = page.locator('details.call > summary').first();
    await first.focus();
    expect(await page.evaluate('document.activeElement.tagName')).toBe('SUMMARY');
    const isOpen = () => page.locator('details.call').first().evaluate((d) => (d as unknown as { open: boolean }).open);
    expect(await isOpen()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await isOpen()).toBe(false);
    await page.keyboard.press('Space');
    expect(await isOpen()).toBe(true);
    const metricsToggle = page.getByText(/^Metrics \(\d+\): reasoning and judge$/).first();
    await metricsToggle.click();
    // The table is built on the details' toggle event, which the browser fires after the click, not within it.
    const masTable = page.getByRole('table', { name: 'Metrics of MASCall weather_workflow' });
    await masTable.waitFor({ timeout: 10_000 });
    expect(await masTable.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Collapse all' }).click();
    expect(await page.locator('details.call[open]').count()).toBe(0);
    await page.getByRole('button', { name: 'Expand all' }).click();
    expect(await page.locator('details.call:not([open])').count()).toBe(0);
    await page.close();
  });

  it('prints whole: every element open, every call table built (also a large session’s), without the controls', async () => {
    const ws = tempWorkspace();
    const { syntheticSession } = (await import(pathToFileURL(join(repo, 'bench/lib/synthetic.mjs')).href)) as { syntheticSession: (spans: number) => unknown };
    const sessionFile = join(ws.dir, 'medium.json');
    writeFileSync(sessionFile, JSON.stringify(syntheticSession(400))); // above OPEN_ALL_UP_TO: collapsed, tables as data
    for (const input of [example('sessions/handoff-three-agents.json'), sessionFile]) {
      const { file, computations } = await reportOf([input]);
      const { page, errors } = await open(file);
      expect(await page.locator('details:not([open])').count()).toBeGreaterThan(0);
      // Printing lays the page out right after beforeprint: the tables must be there when it returns, not on the
      // toggle events that follow.
      const rowsAtOnce = await page.evaluate("dispatchEvent(new Event('beforeprint')), document.querySelectorAll('tr[data-metric]').length");
      expect(rowsAtOnce).toBe(computations[0]!.results.length);
      await page.pdf({ path: join(ws.dir, 'print.pdf') }); // Chromium fires beforeprint, as on paper
      expect(await page.locator('details:not([open])').count()).toBe(0);
      expect(await page.locator('tr[data-metric]').count()).toBe(computations[0]!.results.length);
      await page.emulateMedia({ media: 'print' });
      expect(await page.getByRole('button', { name: 'Expand all' }).isVisible()).toBe(false);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('a real ClickHouse fixture renders with its agents, tools and values', async () => {
    const { file, computations } = await reportOf([fixture('langgraph_supervisor_research.json')]);
    const { page, errors } = await open(file);
    expect(computations).toHaveLength(1);
    const c = computations[0]!;
    const region = page.getByRole('region', { name: `Session ${c.sessionId}` });
    expect(await region.isVisible()).toBe(true);
    // Every value as compute --json printed it (the calls' tables are in the page: 36 spans open whole).
    const shown = await shownResults(page);
    const expected = c.results.map((r) => ({ key: `${r.level}|${r.measures}|${r.name}`, shown: formatValue(r.result) }));
    expect(shown.sort((a, b) => a.key.localeCompare(b.key))).toEqual(expected.sort((a, b) => a.key.localeCompare(b.key)));
    const llmCalls = c.results.filter((r) => r.level === 'Session' && r.name === 'LLMCallCount')[0]!.result;
    expect(llmCalls).toBe(4); // the fixture's README: 4 LLM calls
    expect(await page.locator('li.node .lvl', { hasText: 'LLMCall' }).count()).toBe(4);
    expect(await page.locator('li.node .lvl', { hasText: 'ToolCall' }).count()).toBeGreaterThan(0);
    expect(await treeInStartOrder(page)).toBe(true);
    await page.screenshot({ path: screenshotPath('report-clickhouse-fixture.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(browser.blocked).toEqual([]);
    await page.close();
  });

  it('a 10,000-span session opens with its first levels laid out, every call in the tree, tables built when opened', async () => {
    const ws = tempWorkspace();
    const { syntheticSession } = (await import(pathToFileURL(join(repo, 'bench/lib/synthetic.mjs')).href)) as { syntheticSession: (spans: number) => unknown };
    const sessionFile = join(ws.dir, 'big.json');
    writeFileSync(sessionFile, JSON.stringify(syntheticSession(10_000)));
    const { file, computations } = await reportOf([sessionFile]);
    const { page, errors } = await open(file);
    // The first level in the page (the MAS call and its 400 agent calls); the rest comes in when opened.
    expect(await page.locator('li.node').count()).toBe(401);
    expect(await page.locator('details.call[open]').count()).toBe(1);
    expect(await treeInStartOrder(page)).toBe(true);
    const firstAgent = page.locator('li.node').nth(1); // after the MAS call
    expect(await firstAgent.locator('.lvl').first().textContent()).toBe('AgentCall');
    await firstAgent.locator('> details > summary').click();
    // Its calls come in on the toggle event, fired after the click: wait for the first before counting.
    await firstAgent.locator('li.node').first().waitFor({ timeout: 10_000 });
    const agentCalls = await firstAgent.locator('li.node').count();
    expect(agentCalls).toBeGreaterThan(0);
    expect(await page.locator('li.node').count()).toBe(401 + agentCalls);
    await page.getByRole('button', { name: 'Expand all' }).click();
    expect(await page.locator('li.node').count()).toBe(10_000);
    expect(await page.locator('details.call:not([open])').count()).toBe(0);
    expect(await treeInStartOrder(page)).toBe(true);
    // A call's table is built from the page's data when opened, with the values compute --json printed.
    expect(await page.locator('tr[data-metric]').count()).toBe(computations[0]!.results.filter((r) => r.level === 'Session').length);
    for (const [i, level] of [[0, 'MASCall'], [1, 'AgentCall']] as const) {
      const toggle = page.locator('details.metrics[data-table]').nth(i);
      await toggle.locator('> summary').click();
      expect(await toggle.locator('table caption').textContent()).toMatch(new RegExp(`^Metrics of ${level} `));
    }
    const shown = await shownResults(page);
    expect(shown.length).toBeGreaterThan(3);
    const expected = new Map(computations[0]!.results.map((r) => [`${r.level}|${r.measures}|${r.name}`, formatValue(r.result)]));
    for (const row of shown) expect(row.shown, row.key).toBe(expected.get(row.key));
    await page.screenshot({ path: screenshotPath('report-10000-spans.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
