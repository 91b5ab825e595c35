/**
 * `/`: the stored sessions, newest first, filtered by start time, service and the range of a Session metric (the
 * newest result of it per session), a page at a time, with their Duration and Cost beside them.
 */
import type { Context } from 'hono';
import { formatValue, isoTime } from '../cli/format.js';
import type { MCEClient } from '../mce-client.js';
import { esc } from '../report/index.js';
import type { SessionSummary } from '@mce/store';
import { WebBadRequest, intParam, numberParam, param, timeParam } from './params.js';

const PAGE_SIZE = 50;

interface Filters {
  from?: number;
  to?: number;
  service?: string;
  metric?: string;
  min?: number;
  max?: number;
}

function filtersOf(c: Context): Filters {
  const f: Filters = {};
  const from = timeParam(c, 'from');
  const to = timeParam(c, 'to');
  if (from !== undefined && to !== undefined && from > to) throw new WebBadRequest('from is later than to');
  const min = numberParam(c, 'min');
  const max = numberParam(c, 'max');
  const metric = param(c, 'metric');
  if ((min !== undefined || max !== undefined) && metric === undefined) throw new WebBadRequest('min and max need a metric to compare');
  Object.assign(f, from !== undefined && { from }, to !== undefined && { to }, param(c, 'service') && { service: param(c, 'service') });
  Object.assign(f, metric && { metric }, min !== undefined && { min }, max !== undefined && { max });
  return f;
}

/** The newest Session-level value of each metric per session (results come newest first). */
async function sessionValues(client: MCEClient, metrics: string[], sessionIds?: string[], range: { min?: number; max?: number } = {}): Promise<Map<string, Map<string, number>>> {
  const rows = await client.queryResults({ metrics, levels: ['Session'], ...(sessionIds ? { sessionIds } : {}), ...range });
  const out = new Map<string, Map<string, number>>();
  for (const { result } of rows) {
    const values = out.get(result.sessionId) ?? new Map<string, number>();
    if (!values.has(result.name)) values.set(result.name, result.result);
    out.set(result.sessionId, values);
  }
  return out;
}

export async function sessionsPage(client: MCEClient, c: Context): Promise<{ title: string; body: string }> {
  const f = filtersOf(c);
  const offset = intParam(c, 'offset', 0, 1_000_000_000);
  const listing = { ...(f.from !== undefined ? { from: f.from } : {}), ...(f.to !== undefined ? { to: f.to } : {}), ...(f.service ? { serviceName: f.service } : {}) };
  const sessionMetrics = (await client.summarizeResults({ levels: ['Session'] })).map((s) => s.metric.name);
  if (f.metric && !sessionMetrics.includes(f.metric)) throw new WebBadRequest(`metric: no Session results of "${f.metric}" are stored (stored: ${sessionMetrics.join(', ') || 'none'})`);
  let sessions: SessionSummary[];
  if (f.metric) {
    // Sessions whose newest result of the metric is in range: those with a result in range, checked again on the newest.
    const inRange = await sessionValues(client, [f.metric], undefined, { ...(f.min !== undefined ? { min: f.min } : {}), ...(f.max !== undefined ? { max: f.max } : {}) });
    const newest = await sessionValues(client, [f.metric], [...inRange.keys()]);
    const keep = (id: string) => {
      const v = newest.get(id)?.get(f.metric!);
      return v !== undefined && (f.min === undefined || v >= f.min) && (f.max === undefined || v <= f.max);
    };
    sessions = inRange.size === 0 ? [] : (await client.store.listSessions(listing)).filter((s) => keep(s.id)).slice(offset, offset + PAGE_SIZE + 1);
  } else {
    sessions = await client.store.listSessions({ ...listing, limit: PAGE_SIZE + 1, offset });
  }
  const more = sessions.length > PAGE_SIZE;
  sessions = sessions.slice(0, PAGE_SIZE);
  const shown = [...new Set(['Duration', 'Cost', ...(f.metric ? [f.metric] : [])])];
  const values = sessions.length ? await sessionValues(client, shown, sessions.map((s) => s.id)) : new Map<string, Map<string, number>>();
  return { title: 'Sessions', body: `${filterForm(f, sessionMetrics)}${sessionTable(sessions, shown, values)}${pager(c, offset, more)}` };
}

function filterForm(f: Filters, metrics: string[]): string {
  const input = (name: keyof Filters, label: string, value: unknown, hint: string) =>
    `<label>${label}<input name="${name}" value="${esc(value === undefined ? '' : String(typeof value === 'number' && (name === 'from' || name === 'to') ? new Date(value).toISOString() : value))}" placeholder="${esc(hint)}"></label>`;
  const options = ['', ...metrics].map((m) => `<option value="${esc(m)}"${m === f.metric ? ' selected' : ''}>${esc(m || '(any)')}</option>`);
  return `<form class="filters" method="get" action="/" aria-label="Filter sessions">
${input('from', 'Started from', f.from, '2026-11-30T08:00:00Z')}${input('to', 'Started until', f.to, '2026-12-01T08:00:00Z')}${input('service', 'Service', f.service, 'service name')}
<label>Session metric<select name="metric">${options.join('')}</select></label>${input('min', 'Metric at least', f.min, 'min')}${input('max', 'Metric at most', f.max, 'max')}
<button type="submit">Filter</button></form>`;
}

function sessionTable(sessions: readonly SessionSummary[], metrics: readonly string[], values: Map<string, Map<string, number>>): string {
  if (sessions.length === 0) return '<p class="muted" role="status">No sessions match.</p>';
  const rows = sessions.map((s) => {
    const cells = metrics.map((m) => {
      const v = values.get(s.id)?.get(m);
      return `<td class="num" data-metric="${esc(m)}">${v === undefined ? '<span class="muted">—</span>' : esc(formatValue(v))}</td>`;
    });
    return `<tr><th scope="row"><a href="/view/sessions/${encodeURIComponent(s.id)}">${esc(s.id)}</a></th><td>${esc(s.serviceName ?? '—')}</td><td>${esc(isoTime(s.startTime))}</td><td class="num">${s.counts.agentCalls}</td><td class="num">${s.counts.llmCalls}</td><td class="num">${s.counts.toolCalls}</td>${cells.join('')}</tr>`;
  });
  const heads = metrics.map((m) => `<th scope="col">${esc(m)}</th>`).join('');
  return `<table><caption>Sessions, newest first</caption><thead><tr><th scope="col">Session</th><th scope="col">Service</th><th scope="col">Start</th><th scope="col">Agent calls</th><th scope="col">LLM calls</th><th scope="col">Tool calls</th>${heads}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function pager(c: Context, offset: number, more: boolean): string {
  const link = (to: number, text: string) => {
    const url = new URL(c.req.url);
    url.searchParams.set('offset', String(to));
    return `<a href="${esc(`${url.pathname}${url.search}`)}">${text}</a>`;
  };
  const parts = [offset > 0 ? link(Math.max(0, offset - PAGE_SIZE), 'Previous page') : '', more ? link(offset + PAGE_SIZE, 'Next page') : ''].filter(Boolean);
  return parts.length ? `<p>${parts.join(' · ')}</p>` : '';
}
