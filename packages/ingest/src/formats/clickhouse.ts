/**
 * Rows of the OpenTelemetry Collector's ClickHouse `otel_traces` table (as JSON) → common spans.
 * Accepts a list of rows or an object `{ sessionId: rows }`; events spelled `Events.Name` or `EventsName`;
 * `Timestamp` as a `YYYY-MM-DD hh:mm:ss.ffffff` string (UTC), ISO string, or epoch number; `Duration` in ns.
 */
import { MAX_EPOCH_MS } from '@mce/core';
import type { SpanEvent, SpanRecord } from '../span.js';
import { errorMessage, type WarningSink } from '../errors.js';
import { decodeIdField, decodeInt, decodeKeyValues, decodeSpanKind, decodeStatusCode, parseTimestamp } from '../values.js';
import { isObj } from '../messages.js';
import type { JsonPath } from '../json-position.js';
import { spanLabel, warnAt, type Where } from './otlp.js';

type Obj = Record<string, unknown>;

export function isClickHouseRow(v: unknown): boolean {
  return isObj(v) && ('SpanId' in v || 'spanId' in v) && ('TraceId' in v || 'traceId' in v) && ('SpanAttributes' in v || 'Timestamp' in v);
}

/** Python-style `[datetime.datetime(2025, 6, 20, 21, 37, 8, 604341)]` strings, as some exports write event times. */
function parsePythonDatetimes(s: string): number[] {
  const out: number[] = [];
  for (const m of s.matchAll(/datetime\((\d+), (\d+), (\d+), (\d+), (\d+), (\d+)(?:, (\d+))?/g)) {
    const [y, mo, d, h, mi, se, us] = m.slice(1).map((x) => Number(x ?? 0));
    out.push(Date.UTC(y!, mo! - 1, d!, h!, mi!, se!) + (us ?? 0) / 1000);
  }
  return out;
}

function column(row: Obj, names: string[]): unknown {
  for (const n of names) if (row[n] !== undefined) return row[n];
  return undefined;
}

function decodeEvents(row: Obj, start: number): SpanEvent[] {
  const nested = row.Events;
  if (Array.isArray(nested)) {
    return nested.filter(isObj).map((e) => ({
      name: String(e.Name ?? e.name ?? ''),
      time: parseTimestamp(e.Timestamp ?? e.timestamp) ?? start,
      attributes: decodeKeyValues(e.Attributes ?? e.attributes),
    }));
  }
  const names = column(row, ['Events.Name', 'EventsName']);
  if (!Array.isArray(names)) return [];
  const attrs = column(row, ['Events.Attributes', 'EventsAttributes']);
  const timesRaw = column(row, ['Events.Timestamp', 'EventsTimestamp']);
  const times = Array.isArray(timesRaw)
    ? timesRaw.map((t) => parseTimestamp(t))
    : typeof timesRaw === 'string'
      ? parsePythonDatetimes(timesRaw)
      : [];
  return names.map((n, i) => ({
    name: String(n),
    time: times[i] ?? start,
    attributes: decodeKeyValues(Array.isArray(attrs) ? attrs[i] : undefined),
  }));
}

/** Decode one row; `listPath` and `listIndex`: where it is in its document (none when it is a document of its own). */
function decodeClickHouseRow(row: unknown, sourceSessionId: string | undefined, listPath: JsonPath | undefined, listIndex: number | undefined): SpanRecord {
  if (!isObj(row)) throw new TypeError('row is not an object');
  const traceId = decodeIdField(row, 'trace id', ['TraceId', 'traceId']);
  const spanId = decodeIdField(row, 'span id', ['SpanId', 'spanId']);
  if (!traceId) throw new TypeError('row has no TraceId');
  if (!spanId) throw new TypeError('row has no SpanId');
  const start = parseTimestamp(column(row, ['Timestamp', 'startTime']));
  if (start === undefined) throw new TypeError('row has no readable Timestamp');
  if (start === 0) throw new TypeError('row Timestamp is the epoch, i.e. unset');
  // A duration made up here would become a real Duration result: a row without one is skipped with a warning.
  const durationNs = decodeInt(column(row, ['Duration', 'duration']));
  if (durationNs === undefined || durationNs < 0) throw new TypeError('row has no readable Duration (nanoseconds)');
  const end = start + durationNs / 1e6;
  if (Math.abs(start) > MAX_EPOCH_MS || end > MAX_EPOCH_MS) throw new TypeError('row Timestamp or Duration is out of the range of dates');
  const resource = decodeKeyValues(row.ResourceAttributes);
  const service = row.ServiceName;
  if (typeof service === 'string' && service !== '' && resource['service.name'] === undefined) resource['service.name'] = service;
  const name = column(row, ['SpanName', 'name']);
  const message = row.StatusMessage;
  const attributes = decodeKeyValues(row.SpanAttributes);
  const scope = row.ScopeName;
  return {
    traceId,
    spanId,
    parentSpanId: decodeIdField(row, 'parent span id', ['ParentSpanId', 'parentSpanId']),
    name: typeof name === 'string' ? name : '',
    kind: decodeSpanKind(row.SpanKind),
    startTime: start,
    endTime: end,
    status: {
      code: decodeStatusCode(column(row, ['StatusCode', 'statusCode'])),
      ...(typeof message === 'string' && message !== '' ? { message } : {}),
    },
    attributes,
    resource,
    ...(typeof scope === 'string' && scope !== '' ? { scope } : {}),
    events: decodeEvents(row, start),
    ...(sourceSessionId ? { sourceSessionId } : {}),
    listPath,
    listIndex,
  };
}

/** Every span of a ClickHouse export (list of rows, or `{ sessionId: rows }`). */
export function* clickHouseSpans(data: unknown, warnings: WarningSink, where: Where): Generator<SpanRecord> {
  const groups: [string | undefined, unknown[]][] = Array.isArray(data)
    ? [[undefined, data]]
    : isObj(data)
      ? Object.entries(data).map(([k, v]) => [k, Array.isArray(v) ? v : []] as [string, unknown[]])
      : [];
  for (const [sessionId, rows] of groups) {
    // Where the rows are in the document: one path for the list, each row adds its index (spanPath).
    const listPath: JsonPath = sessionId === undefined ? (where.path ?? []) : [...(where.path ?? []), sessionId];
    for (let i = 0; i < rows.length; i++) {
      const span = rowSpan(rows[i], sessionId, warnings, where, listPath, i);
      if (span) yield span;
    }
  }
}

/** The span of a row that is a document of its own (a JSON Lines line): it has no place inside that document. */
export function clickHouseRowSpan(row: unknown, warnings: WarningSink, where: Where): SpanRecord | undefined {
  return rowSpan(row, undefined, warnings, where, undefined, undefined);
}

/** The span of item `index` of a list of rows that is the document (read row by row). */
export function clickHouseListRowSpan(row: unknown, index: number, warnings: WarningSink, where: Where): SpanRecord | undefined {
  return rowSpan(row, undefined, warnings, where, ROOT, index);
}

const ROOT: JsonPath = Object.freeze([]) as unknown as JsonPath;

/** A row's span; undefined, with a warning naming the row, for one that cannot be used. */
function rowSpan(row: unknown, sessionId: string | undefined, warnings: WarningSink, where: Where, listPath: JsonPath | undefined, index: number | undefined): SpanRecord | undefined {
  try {
    return decodeClickHouseRow(row, sessionId, listPath, index);
  } catch (err) {
    const r = isObj(row) ? row : {};
    const label = spanLabel(String(r.SpanId ?? r.SpanName ?? '(unnamed)'));
    const warning = {
      code: 'malformed-span' as const,
      message: `skipped row ${label}: ${errorMessage(err)}`,
      span: label,
      file: where.file,
      ...(where.line !== undefined ? { line: where.line } : {}),
    };
    warnAt(warnings, where, warning, () => (listPath === undefined || index === undefined ? undefined : [...listPath, index]));
    return undefined;
  }
}
