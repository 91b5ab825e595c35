/** Human output of the CLI: plain aligned tables, one per session; warnings, one per line. */
import { ONTOLOGY_LEVELS, type SessionComputation } from '@mce/core';
import { nativeProvider } from '@mce/provider-native';
import type { ResultSummary, StoredMetricResult } from '@mce/store';
import type { IngestWarning } from '@mce/ingest';

/** A character as a `\u001b`-style escape. */
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Text from traces as a terminal may show it: control characters (an escape sequence in a span name could move the
 * cursor, hide text or write the clipboard) become `\u001b`-style escapes.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, escaped);
}

/** Whether `printable` would change the text. */
// eslint-disable-next-line no-control-regex
const hasControl = (text: string): boolean => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text);

/**
 * An ingest warning as a person reads it, its place first as compilers write one (`file:line:column: warning: message
 * [code]`, as much of the place as is known), which editors and terminals open at that place. On one line: a line break
 * or tab from a trace is an escape too.
 */
export function warningLine(w: IngestWarning): string {
  let place = w.file ?? '';
  if (w.file !== undefined && w.line !== undefined) place += w.column === undefined ? `:${w.line}` : `:${w.line}:${w.column}`;
  return printable(`${place === '' ? '' : `${place}: `}warning: ${w.message} [${w.code}]`).replace(/[\t\n]/g, escaped);
}

export function table(headers: string[], rows: string[][]): string {
  // Cells are escaped one by one only when one of them needs it: one search of all their text instead of one per cell
  // (a session's table has thousands).
  if (hasControl(rows.map((row) => row.join('')).join(''))) rows = rows.map((row) => row.map(printable));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)].join('\n');
}

export function truncate(text: string, max: number): string {
  // Text with single spaces only, none at its ends, is flat already: one search instead of a replace and a trim.
  const flat = /[^\S ]|\s\s|^\s|\s$/.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A number as a person reads it: integers as is, others with up to 6 significant digits. */
export function formatValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Number(value.toPrecision(6)).toString();
}

/** An epoch-millisecond time as ISO 8601, or the number itself when no date can hold it (a store written by others). */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} (not a date)` : date.toISOString();
}

function shortId(level: string, id: string, sessionId: string): string {
  if (level === 'Session' || id === sessionId) return '(session)';
  return id.length > 16 ? `${id.slice(0, 16)}…` : id;
}

/** A metric as people know it: its name, qualified by its provider when that is not the native one. */
function metricLabel(name: string, provider: string): string {
  return provider === nativeProvider.name ? name : `${provider}:${name}`;
}

/** Results across sessions, one row each, in the order given (newest first). */
export function formatResultRows(rows: readonly StoredMetricResult[]): string {
  if (rows.length === 0) return '(no results)';
  return table(
    ['Time', 'Session', 'Level', 'Measures', 'Metric', 'Value', 'Unit'],
    rows.map(({ result, metric }) => [
      result.timestamp,
      result.sessionId,
      result.measures.level,
      shortId(result.measures.level, result.measures.id, result.sessionId),
      metricLabel(result.name, metric.computedBy),
      formatValue(result.result),
      metric.unit,
    ]),
  );
}

/** A summary of results, one row per metric and level, in the order given. */
export function formatSummaryRows(rows: readonly ResultSummary[]): string {
  if (rows.length === 0) return '(no results)';
  return table(
    ['Metric', 'Level', 'Count', 'Mean', 'p50', 'p95', 'Min', 'Max', 'Unit', 'Sessions'],
    rows.map((r) => [
      metricLabel(r.metric.name, r.metric.computedBy),
      r.level,
      String(r.count),
      ...[r.mean, r.p50, r.p95, r.min, r.max].map(formatValue),
      printable(r.metric.unit),
      String(r.sessions),
    ]),
  );
}

export function formatComputation(c: SessionComputation): string {
  const out: string[] = [printable(`Session ${c.sessionId}`)];
  // Group by element (session first, then each level in ontology order), keeping the metric order within.
  const byElement = [...c.results].sort(
    (a, b) => ONTOLOGY_LEVELS.indexOf(a.level) - ONTOLOGY_LEVELS.indexOf(b.level) || (a.measures < b.measures ? -1 : a.measures > b.measures ? 1 : 0),
  );
  const rows = byElement.map((r) => [
    r.level,
    shortId(r.level, r.measures, c.sessionId),
    // A plugin's metric may share a built-in name: it shows as provider:name.
    metricLabel(r.name, r.provider),
    formatValue(r.result),
    r.unit,
    truncate(r.reasoning, 70),
  ]);
  out.push(rows.length ? table(['Level', 'Measures', 'Metric', 'Value', 'Unit', 'Reasoning'], rows) : '(no results)');
  if (c.skipped.length) {
    out.push('', 'Skipped:');
    for (const s of c.skipped) out.push(printable(`  ${s.name} [${s.level} ${shortId(s.level, s.measures, c.sessionId)}]: ${s.reason}`));
  }
  if (c.failed.length) {
    out.push('', 'Failed:');
    for (const f of c.failed) out.push(printable(`  ${f.name} [${f.level} ${shortId(f.level, f.measures, c.sessionId)}]: ${f.error}`));
  }
  return out.join('\n');
}
