/**
 * A line chart as inline SVG (no library, nothing fetched): one metric's mean and p95 per time bucket, with the
 * figures also in a table beside it for screen readers and print.
 */
import { formatValue, isoTime } from '../cli/format.js';
import { esc } from './escape.js';

export interface TrendPoint {
  /** Bucket start and end, epoch ms. */
  from: number;
  to: number;
  count: number;
  mean: number;
  p95: number;
}

const W = 720;
const H = 260;
const PAD = { left: 64, right: 16, top: 16, bottom: 40 };

export function trendChart(title: string, unit: string, points: readonly TrendPoint[]): string {
  const filled = points.filter((p) => p.count > 0);
  if (filled.length === 0) return `<p class="muted">No results for ${esc(title)} in this period.</p>`;
  const top = Math.max(...filled.map((p) => p.p95), ...filled.map((p) => p.mean));
  const yMax = top > 0 ? top * 1.1 : 1;
  const x0 = points[0]!.from;
  const xSpan = Math.max(points[points.length - 1]!.to - x0, 1);
  const x = (t: number) => PAD.left + ((t - x0) / xSpan) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / yMax) * (H - PAD.top - PAD.bottom);
  const mid = (p: TrendPoint) => (p.from + p.to) / 2;
  const line = (value: (p: TrendPoint) => number) => filled.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(mid(p)).toFixed(1)},${y(value(p)).toFixed(1)}`).join(' ');
  const dots = filled.map((p) => `<circle cx="${x(mid(p)).toFixed(1)}" cy="${y(p.mean).toFixed(1)}" r="3" data-mean="${p.mean}" data-from="${p.from}" data-to="${p.to}"><title>${esc(`${isoTime(p.from)}: mean ${formatValue(p.mean)} ${unit} over ${p.count}`)}</title></circle>`);
  const ticks = [0, 0.5, 1].map((f) => `<text x="${PAD.left - 6}" y="${y(yMax * f) + 4}" text-anchor="end">${esc(formatValue(Number((yMax * f).toPrecision(3))))}</text>`);
  const svg = `<svg class="chart" role="img" aria-label="${esc(`${title}: mean and p95 per period`)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">
<line class="axis" x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}"/><line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}"/>
${ticks.join('')}<text x="${PAD.left}" y="${H - 12}">${esc(isoTime(x0))}</text><text x="${W - PAD.right}" y="${H - 12}" text-anchor="end">${esc(isoTime(x0 + xSpan))}</text>
<path class="line" d="${line((p) => p.mean)}"/><path class="line p95" d="${line((p) => p.p95)}" stroke-dasharray="5 4"/>${dots.join('')}</svg>`;
  const rows = points.map((p) => `<tr><td>${esc(isoTime(p.from))}</td><td class="num">${p.count}</td><td class="num">${p.count ? esc(formatValue(p.mean)) : '—'}</td><td class="num">${p.count ? esc(formatValue(p.p95)) : '—'}</td></tr>`);
  return `<figure>${svg}<figcaption>${esc(title)} (${esc(unit)}): mean (solid) and p95 (dashed) per period.</figcaption></figure>
<table><caption>${esc(title)} per period</caption><thead><tr><th scope="col">From</th><th scope="col">Results</th><th scope="col">Mean</th><th scope="col">p95</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
