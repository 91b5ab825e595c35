/**
 * The HTML components of a session report, shared by `mce report` (one self-contained file) and the web view of
 * `mce serve`: the page shell, a session's facts, its call tree with the timeline and the results beside each element,
 * failed and skipped metrics, and cost by model and by agent. Strings in, strings out: no DOM, no network.
 */
import type { ResultRecord } from '@mce/core';
import { formatValue, isoTime } from '../cli/format.js';
import { esc, scriptJson } from './escape.js';
import type { CostRow, ReportNode, SessionReport } from './model.js';
import { SCRIPT } from './script.js';
import { STYLES } from './styles.js';

/** Up to this many elements a session's tree opens whole; a larger one opens its first level, the rest as data. */
export const OPEN_ALL_UP_TO = 300;

/** A page's start, up to its content: its policy lets it load nothing (inline style and script only), opened from a file or served. */
export function pageStart(title: string, header = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; form-action 'self'">
<title>${esc(title)}</title><style>${STYLES}</style></head>
<body><header class="page">${header}<h1>${esc(title)}</h1></header><main>`;
}

/** A page's end, after its content. */
export const PAGE_END = `</main><script>${SCRIPT}</script></body></html>
`;

/** A whole page. */
export function page(title: string, body: string, header = ''): string {
  return `${pageStart(title, header)}${body}${PAGE_END}`;
}

const ms = (value: number) => `${formatValue(Math.round(value * 1000) / 1000)} ms`;
const usd = (value: number | undefined) => (value === undefined ? '<span class="muted">not computed</span>' : `${formatValue(value)} USD`);

export function sessionSection(report: SessionReport, anchor: string): string {
  const s = report.session;
  return `<section class="session" id="${esc(anchor)}" aria-labelledby="${esc(anchor)}-h">
<h2 id="${esc(anchor)}-h">Session ${esc(s.id)}</h2>
${sessionFacts(report)}
${resultsTable(report.root.results, 'Session metrics')}
${outcomes(report)}
<h3 id="${esc(anchor)}-tree">Call tree and timeline</h3>
<div class="controls"><button type="button" data-tree="expand">Expand all</button><button type="button" data-tree="collapse">Collapse all</button></div>
${callTree(report)}
<h3>Cost</h3>
${costTable(report.costByModel, 'Cost by model', 'Model')}
${costTable(report.costByAgent, 'Cost by agent', 'Agent')}
<p>Judge: ${report.judge.results} judged result${report.judge.results === 1 ? '' : 's'}, ${report.judge.totalTokens} tokens, ${formatValue(report.judge.costUsd)} USD${report.judge.models.length ? ` (${esc(report.judge.models.join(', '))})` : ''}.</p>
</section>`;
}

function sessionFacts(report: SessionReport): string {
  const s = report.session;
  const rows: [string, string][] = [
    ['Service', esc(s.serviceName ?? '—')],
    ...(s.appName ? [['Application', esc(s.appName)] as [string, string]] : []),
    ['Start', esc(isoTime(s.startTime))],
    ['Duration', esc(ms(s.endTime - s.startTime))],
    ['Calls', String(report.elementCount)],
    ['Results', String(report.resultCount)],
    ['MCP servers', esc(report.mcpServers.join(', ') || '—')],
    ['Input', esc(s.userInput ?? '—')],
    ['Final response', esc(s.finalResponse ?? '—')],
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

export function resultsTable(results: readonly ResultRecord[], caption: string): string {
  if (results.length === 0) return '<p class="muted">No results.</p>';
  const rows = results.map(
    (r) =>
      `<tr data-metric="${esc(r.name)}" data-level="${esc(r.level)}" data-measures="${esc(r.measures)}"><th scope="row">${esc(r.name)}</th><td class="num" data-value="${r.result}">${esc(formatValue(r.result))}</td><td>${esc(r.unit)}</td><td>${esc(r.reasoning)}</td><td>${judgeCell(r)}</td></tr>`,
  );
  return `<table><caption>${esc(caption)}</caption><thead><tr><th scope="col">Metric</th><th scope="col">Value</th><th scope="col">Unit</th><th scope="col">Reasoning</th><th scope="col">Judge</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function judgeText(r: ResultRecord): string {
  if (r.evaluationModel === null) return '—';
  return `${r.evaluationModel}: ${r.evaluationPromptTokenCount} + ${r.evaluationCompletionTokenCount} tokens, ${formatValue(r.evaluationCost)} USD`;
}

const judgeCell = (r: ResultRecord) => (r.evaluationModel === null ? '<span class="muted">—</span>' : esc(judgeText(r)));

function outcomes(report: SessionReport): string {
  if (!report.outcomesKnown) return '<p class="muted">Failed and skipped metrics are not kept by the store: compute from the traces (<code>mce report --input</code>) to see them.</p>';
  const failed = report.failed.map((f) => `<li class="error"><strong>${esc(f.name)}</strong> failed on ${esc(f.level)} ${esc(f.measures)}: ${esc(f.error)}</li>`);
  const skipped = report.skipped.map((s) => `<li class="warn"><strong>${esc(s.name)}</strong> skipped on ${esc(s.level)} ${esc(s.measures)}: ${esc(s.reason)}</li>`);
  return `<h3>Failed metrics (${failed.length})</h3>${failed.length ? `<ul>${failed.join('')}</ul>` : '<p class="muted">None failed.</p>'}
<h3>Skipped metrics (${skipped.length})</h3>${skipped.length ? `<ul>${skipped.join('')}</ul>` : '<p class="muted">None skipped.</p>'}`;
}

function costTable(rows: readonly CostRow[], caption: string, what: string): string {
  if (rows.length === 0) return `<p class="muted">${esc(caption)}: no LLM calls.</p>`;
  const body = rows.map((r) => `<tr><th scope="row">${esc(r.name)}</th><td class="num">${r.llmCalls}</td><td class="num">${r.inputTokens}</td><td class="num">${r.outputTokens}</td><td class="num">${usd(r.costUsd)}</td></tr>`);
  return `<table><caption>${esc(caption)}</caption><thead><tr><th scope="col">${what}</th><th scope="col">LLM calls</th><th scope="col">Input tokens</th><th scope="col">Output tokens</th><th scope="col">Cost</th></tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/**
 * The tree as nested lists, each call a row of label, duration and timeline bar (its offset and length within the
 * session), its results in a table under it. A large session opens its first level; the calls below a closed
 * one are not in the page but in its data, as markup written here, and enter the page when opened — a 10,000-span
 * page then holds a few hundred elements, not tens of thousands. Off-screen rows skip rendering (content-visibility).
 */
function callTree(report: SessionReport): string {
  const { root } = report;
  const small = report.elementCount <= OPEN_ALL_UP_TO;
  // A large session's call tables are data too, built by the script when opened: 10,000 tables of reasoning are most
  // of a page's bytes and of its parse time.
  const lazy: LazyData | undefined = small ? undefined : { tables: [], subtrees: [] };
  const ctx: TreeContext = { origin: root.startTime, span: Math.max(root.endTime - root.startTime, 1e-9), small, lazy };
  const out = ['<ul class="tree" aria-label="Calls of the session in start order">'];
  renderCalls(root.children, 0, ctx, out);
  out.push('</ul>');
  if (lazy) out.push(`<script type="application/json" class="lazy-data">${scriptJson(lazy)}</script>`);
  return out.join('');
}

interface TreeContext {
  origin: number;
  span: number;
  small: boolean;
  lazy: LazyData | undefined;
}

/** What a large session's page builds when opened: call tables, and the markup of the calls under a closed call. */
interface LazyData {
  tables: LazyTable[];
  subtrees: string[];
}

/** The depth whose calls start closed in a large session, and below which calls are data until opened. */
const CLOSED_DEPTH = 1;

/**
 * `calls` and their descendants into `out`, with an explicit stack: a chain of thousands of spans is no deeper a
 * recursion (the only nesting is one level, for a deferred subtree).
 */
function renderCalls(calls: readonly ReportNode[], firstDepth: number, ctx: TreeContext, out: string[]): void {
  const stack: Array<{ node: ReportNode; depth: number } | string> = [...calls].reverse().map((node) => ({ node, depth: firstDepth }));
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const { node, depth } = item;
    const row = callRow(node, ctx.origin, ctx.span);
    const detail = nodeDetail(node, ctx.lazy?.tables);
    if (node.children.length === 0 && detail === '') {
      out.push(`<li class="node leaf status-${node.status}" data-start="${node.startTime}">${row}</li>`);
      continue;
    }
    const open = ctx.small || depth < CLOSED_DEPTH ? ' open' : '';
    const head = `<li class="node status-${node.status}" data-start="${node.startTime}"><details class="call"${open}><summary>${row}</summary>${detail}`;
    if (node.children.length === 0) {
      out.push(`${head}</details></li>`);
    } else if (ctx.lazy && depth === CLOSED_DEPTH) {
      const subtree: string[] = [];
      renderCalls(node.children, depth + 1, ctx, subtree);
      const index = ctx.lazy.subtrees.push(subtree.join('')) - 1;
      out.push(`${head}<ul data-subtree="${index}"></ul></details></li>`);
    } else {
      out.push(`${head}<ul>`);
      stack.push('</ul></details></li>');
      for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
    }
  }
}

/** A results table the script builds: its caption and rows [metric, level, measures, value, shown value, unit, reasoning, judge]. */
type LazyTable = [string, Array<[string, string, string, number, string, string, string, string]>];

function lazyTable(node: ReportNode, caption: string): LazyTable {
  return [caption, node.results.map((r) => [r.name, r.level, r.measures, r.result, formatValue(r.result), r.unit, r.reasoning, judgeText(r)])];
}

function callRow(node: ReportNode, origin: number, span: number): string {
  const left = ((node.startTime - origin) / span) * 100;
  const width = ((node.endTime - node.startTime) / span) * 100;
  const chips = [
    `+${esc(ms(node.startTime - origin))}`,
    ...node.facts.map(esc),
    ...node.results.filter((r) => r.name !== 'Duration').slice(0, 4).map((r) => `${esc(r.name)} ${esc(formatValue(r.result))} ${esc(r.unit)}`),
  ];
  const shown = node.results.filter((r) => r.name !== 'Duration').length;
  const more = shown > 4 ? ` · +${shown - 4} more` : '';
  return `<div class="row"><span class="what"><span class="lvl">${esc(node.level)}</span> ${esc(node.label)}</span><span class="dur">${esc(ms(node.endTime - node.startTime))}</span><span class="track" aria-hidden="true"><span class="bar" style="--l:${left.toFixed(3)}%;--w:${width.toFixed(3)}%"></span></span><span class="chips">${chips.join(' · ')}${more}</span></div>`;
}

/** Under a row: its failed and skipped metrics in sight, its results' table (reasoning, judge) one click away. */
function nodeDetail(node: ReportNode, lazy: LazyTable[] | undefined): string {
  const failed = node.failed.map((f) => `<li class="error">${esc(f.name)} failed: ${esc(f.error)}</li>`);
  const skipped = node.skipped.map((s) => `<li class="warn">${esc(s.name)} skipped: ${esc(s.reason)}</li>`);
  const lists = failed.length + skipped.length ? `<ul>${failed.join('')}${skipped.join('')}</ul>` : '';
  const caption = `Metrics of ${node.level} ${node.label}`;
  const summary = `<summary>Metrics (${node.results.length}): reasoning and judge</summary>`;
  let table = '';
  if (node.results.length > 0 && lazy) table = `<details class="metrics" data-table="${lazy.push(lazyTable(node, caption)) - 1}">${summary}</details>`;
  else if (node.results.length > 0) table = `<details class="metrics">${summary}${resultsTable(node.results, caption)}</details>`;
  return lists || table ? `<div class="detail">${lists}${table}</div>` : '';
}

/** A table of contents when a report holds several sessions: their ids, in the order of their sections. */
export function sessionIndex(sessionIds: readonly string[]): string {
  if (sessionIds.length < 2) return '';
  return `<nav aria-label="Sessions"><ul>${sessionIds.map((id, i) => `<li><a href="#session-${i + 1}">${esc(id)}</a></li>`).join('')}</ul></nav>`;
}

/** The start of a report, up to its first session's section: it needs only the sessions' ids. */
export function reportStart(sessionIds: readonly string[], generatedAt: Date): string {
  const title = sessionIds.length === 1 ? `mce report: ${sessionIds[0]!}` : `mce report: ${sessionIds.length} sessions`;
  return `${pageStart(title)}<p class="muted">Generated ${esc(generatedAt.toISOString())} by mce.</p>${sessionIndex(sessionIds)}`;
}

/** Between two sessions' sections. */
export const SECTION_SEPARATOR = '\n';

/** The whole self-contained report of one run, in one string (`mce report` writes it a section at a time: spool.ts). */
export function reportDocument(reports: readonly SessionReport[], generatedAt: Date = new Date()): string {
  const sections = reports.map((r, i) => sessionSection(r, `session-${i + 1}`)).join(SECTION_SEPARATOR);
  return `${reportStart(reports.map((r) => r.session.id), generatedAt)}${sections}${PAGE_END}`;
}
