/**
 * `/view/trends`: every stored metric and level with its summary, and for one of them (`metric`, `level`) its mean
 * and p95 over time: the period from its first to its last result cut into `buckets` equal spans, each summarised
 * by the store (the same figures as GET /results/summary with from/to).
 */
import type { Context } from 'hono';
import type { OntologyLevel } from '@mce/core';
import { formatValue } from '../cli/format.js';
import type { MCEClient } from '../mce-client.js';
import { esc, trendChart, type TrendPoint } from '../report/index.js';
import type { ResultSummary } from '@mce/store';
import { WebBadRequest, intParam, levelParam, param } from './params.js';

export async function trendsPage(client: MCEClient, c: Context): Promise<{ title: string; body: string }> {
  const metric = param(c, 'metric');
  const level = levelParam(c, 'level');
  const buckets = intParam(c, 'buckets', 12, 100);
  if (buckets < 1) throw new WebBadRequest('buckets: at least 1');
  const all = await client.summarizeResults({});
  const overview = summaryTable(all);
  if (metric === undefined) return { title: 'Trends', body: overview };
  const row = all.find((r) => r.metric.name === metric && r.level === level);
  if (!row) throw new WebBadRequest(`metric: no ${level} results of "${metric}" are stored`);
  const points = await trendPoints(client, metric, level, row, buckets);
  return { title: `Trend of ${metric} (${level})`, body: `${trendChart(`${metric} at ${level}`, row.metric.unit, points)}${overview}` };
}

async function trendPoints(client: MCEClient, metric: string, level: OntologyLevel, row: ResultSummary, buckets: number): Promise<TrendPoint[]> {
  const first = Date.parse(row.first);
  const span = Date.parse(row.last) - first + 1;
  const bound = (i: number) => first + Math.floor((i * span) / buckets);
  const points: TrendPoint[] = [];
  // Timestamps are whole milliseconds and from/to are inclusive: each bucket ends 1 ms before the next begins.
  for (let i = 0; i < buckets; i++) {
    const from = bound(i);
    const to = bound(i + 1) - 1;
    if (to < from) continue;
    const [s] = await client.summarizeResults({ metrics: [metric], levels: [level], from, to });
    points.push({ from, to, count: s?.count ?? 0, mean: s?.mean ?? 0, p95: s?.p95 ?? 0 });
  }
  return points;
}

function summaryTable(rows: readonly ResultSummary[]): string {
  if (rows.length === 0) return '<p class="muted" role="status">No results are stored.</p>';
  const body = rows.map((r) => {
    const href = `/view/trends?metric=${encodeURIComponent(r.metric.name)}&level=${encodeURIComponent(r.level)}`;
    const figures = [r.count, r.mean, r.p50, r.p95, r.min, r.max].map((v) => `<td class="num">${esc(formatValue(v))}</td>`).join('');
    return `<tr><th scope="row"><a href="${esc(href)}">${esc(r.metric.name)}</a></th><td>${esc(r.level)}</td>${figures}<td>${esc(r.metric.unit)}</td><td class="num">${r.sessions}</td></tr>`;
  });
  return `<table><caption>Stored results by metric and level</caption><thead><tr><th scope="col">Metric</th><th scope="col">Level</th><th scope="col">Count</th><th scope="col">Mean</th><th scope="col">p50</th><th scope="col">p95</th><th scope="col">Min</th><th scope="col">Max</th><th scope="col">Unit</th><th scope="col">Sessions</th></tr></thead><tbody>${body.join('')}</tbody></table>`;
}
