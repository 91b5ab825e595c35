// Report benchmark: `mce report` of one large synthetic session (run `npm run build` first).
//   node bench/report/run.mjs [--spans 10000] [--rounds 5]
// Prints how long the HTML takes to generate (from a computed session: the engine's time beside it for scale), its
// size, and how long headless Chromium (Debian's chromium, via playwright-core) takes to open it from file: to
// DOMContentLoaded, to the load event and to the first contentful paint, medians of --rounds fresh pages; then how long
// opening the first closed call and "Expand all" take. The load time is compared with OPEN_BUDGET_MS, the budget
// docs/report.md states.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { MCEClient, buildSessionReport, openStore, reportDocument } from '@mce/client';
import { machineLine } from '../lib/machine.mjs';
import { OUT_DIR } from '../lib/session-files.mjs';
import { spanCount, syntheticSession } from '../lib/synthetic.mjs';

/** The longest a report of --spans 10000 may take to reach its load event in Chromium (docs/report.md). */
const OPEN_BUDGET_MS = 2000;

const { values: args } = parseArgs({ options: { spans: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } } });
const spans = Number(args.spans);
const rounds = Number(args.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = (n, d = 0) => n.toFixed(d);

console.log(machineLine());
const session = syntheticSession(spans);
console.log(`session: ${spanCount(session)} spans (${session.llmCalls.length} LLM calls, ${session.toolCalls.length} tool calls, ${session.agentCalls.length} agent calls)`);

const store = await openStore('sqlite::memory:');
const client = await MCEClient.open({ store, env: { MCE_METRIC_CACHE: 'none' } });
let t = performance.now();
const [computation] = await client.compute([session]);
const computeMs = performance.now() - t;
await client.close();
console.log(`compute: ${computation.results.length} results in ${f(computeMs)} ms`);

const generate = [];
let html = '';
for (let r = 0; r < rounds; r++) {
  t = performance.now();
  html = reportDocument([buildSessionReport(session, computation)]);
  generate.push(performance.now() - t);
}
const bytes = Buffer.byteLength(html);
console.log(`generate: ${f(median(generate))} ms (median of ${rounds}), ${f(median(generate) / computeMs, 2)}× the compute time; ${f(bytes / 1024 / 1024, 2)} MiB, ${f(bytes / spans)} bytes per span`);

mkdirSync(OUT_DIR, { recursive: true });
const file = join(OUT_DIR, `report-${spans}.html`);
writeFileSync(file, html);
const profile = mkdtempSync(join(tmpdir(), 'mce-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.MCE_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
/** What the bench runs in the page (as text: browser code, not Node's), each returning its time in ms. */
const IN_PAGE = {
  // The toggle event is asynchronous: dispatched here so that its work (and the layout it causes) is inside the time.
  openFirstClosedCall: `(() => { const t0 = performance.now(); const d = document.querySelector('details.call:not([open])');
    d.open = true; d.dispatchEvent(new Event('toggle')); void d.offsetHeight; return performance.now() - t0; })()`,
  expandAll: `(() => { const t0 = performance.now(); document.querySelector('button[data-tree="expand"]').click();
    void document.body.offsetHeight; return performance.now() - t0; })()`,
  callsInPage: `document.querySelectorAll('li.node').length`,
};
const dcl = [], load = [], fcp = [], wall = [], firstOpen = [], expandAll = [];
for (let r = 0; r < rounds; r++) {
  const page = await context.newPage();
  t = performance.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  wall.push(performance.now() - t);
  const timing = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return { dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, fcp: paint ? paint.startTime : NaN };
  });
  // Opening the first closed call (its calls come in from the page's data, parsed on first use), then everything.
  firstOpen.push(await page.evaluate(IN_PAGE.openFirstClosedCall));
  expandAll.push(await page.evaluate(IN_PAGE.expandAll));
  if (r === 0) console.log(`elements: ${await page.evaluate(IN_PAGE.callsInPage)} calls in the page after Expand all`);
  dcl.push(timing.dcl);
  load.push(timing.load);
  fcp.push(timing.fcp);
  await page.close();
}
await context.close();
rmSync(profile, { recursive: true, force: true });
const loadMs = median(load);
console.log(`open in Chromium (median of ${rounds}): DOMContentLoaded ${f(median(dcl))} ms, load ${f(loadMs)} ms, first contentful paint ${f(median(fcp))} ms, goto→load wall ${f(median(wall))} ms`);
console.log(`interaction (median of ${rounds}): open the first closed call ${f(median(firstOpen))} ms (parses the page's data), Expand all ${f(median(expandAll))} ms`);
console.log(`budget: load within ${OPEN_BUDGET_MS} ms: ${f(loadMs / OPEN_BUDGET_MS, 2)}× the budget — ${loadMs <= OPEN_BUDGET_MS ? 'within' : 'OVER'}`);
if (loadMs > OPEN_BUDGET_MS) process.exitCode = 1;
