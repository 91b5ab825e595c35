/**
 * What the OpenTelemetry SDKs' console exporters print, saved to a file.
 *
 * Python `ConsoleSpanExporter` (`ReadableSpan.to_json()`): pretty-printed objects back to back (json-values.ts), or a
 * list of them: `{name, context: {trace_id: "0x…", span_id}, kind: "SpanKind.INTERNAL", parent_id, start_time (ISO),
 * end_time, status: {status_code}, attributes, events, resource: {attributes}}`. A span processor that exports at
 * start and at end prints a span twice: the ended print is kept.
 *
 * JS SDK `ReadableSpan` (`console.log(span)`, `JSON.stringify(spans)`): `{name, kind: 0–4, spanContext: {traceId,
 * spanId}, parentSpanId, startTime: [s, ns], endTime, status: {code}, attributes, events, resource: {attributes}}`.
 * A dump without the span's own ids (the context is a method, not written out) gets ids made from its content and
 * place, so that its spans still make one trace.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeSpanKind, decodeStatusCode } from '../values.js';
import { contentId, decodeList, flatAttributes, nameOf, placed, readEvents, readId, spanTimes, type Obj } from './common.js';
import type { Where } from './otlp.js';

/** A Python `ReadableSpan.to_json()` object. */
export const isPythonSpan = (v: unknown): v is Obj => isObj(v) && isObj(v.context) && 'trace_id' in v.context && 'start_time' in v && ('kind' in v || 'status' in v);

/** A JS SDK `ReadableSpan`: times as hrtime pairs. */
export const isJsSpan = (v: unknown): v is Obj => isObj(v) && typeof v.name === 'string' && isHrTime(v.startTime) && ('endTime' in v || 'duration' in v);

const isHrTime = (v: unknown) => Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number';

/** A list of console-exporter spans (the back-to-back objects of a file arrive as such a list). */
export function isOtelConsole(doc: unknown): boolean {
  const list = Array.isArray(doc) ? doc : [doc];
  const first = list.find(isObj);
  return first !== undefined && (isPythonSpan(first) || isJsSpan(first));
}

/** Python's ids are `0x`-prefixed hex; the decimal ints of `to_json` on some versions are read too. */
function decodePythonSpan(raw: unknown): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isPythonSpan(raw)) throw new TypeError('span is not a ConsoleSpanExporter object (context.trace_id, start_time)');
  const context = raw.context as Obj;
  const traceId = readId(context.trace_id, 'trace id (context.trace_id)', 16);
  const spanId = readId(context.span_id, 'span id (context.span_id)', 8);
  if (!traceId) throw new TypeError('span has no trace id (context.trace_id)');
  if (!spanId) throw new TypeError('span has no span id (context.span_id)');
  if (raw.end_time === null) throw new TypeError('printed only at its start (end_time null): it had not ended when the output was written');
  const { startTime, endTime } = spanTimes(raw.start_time, raw.end_time, 'start_time, end_time');
  const parent = isObj(raw.parent) ? raw.parent.span_id : raw.parent_id;
  const status = isObj(raw.status) ? raw.status : {};
  const resource = isObj(raw.resource) ? raw.resource : {};
  const scope = isObj(raw.instrumentation_scope) ? raw.instrumentation_scope.name : undefined;
  return {
    traceId,
    spanId,
    parentSpanId: readId(parent, 'parent span id (parent_id)', 8),
    name: nameOf(raw.name),
    kind: decodeSpanKind(raw.kind),
    startTime,
    endTime,
    status: statusOf(status.status_code, status.description),
    attributes: flatAttributes(raw.attributes),
    resource: flatAttributes(resource.attributes),
    scope: typeof scope === 'string' ? scope : undefined,
    events: readEvents(raw.events, startTime),
  };
}

function statusOf(code: unknown, message: unknown): SpanRecord['status'] {
  const c = decodeStatusCode(code);
  return typeof message === 'string' && message !== '' ? { code: c, message } : { code: c };
}

/** A JS ReadableSpan; `ids`: the trace and span ids to give it when it has none of its own. */
function decodeJsSpan(raw: unknown, ids: { traceId: string; spanId: string }): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isJsSpan(raw)) throw new TypeError('span is not a ReadableSpan (name, startTime [s, ns])');
  const context = isObj(raw.spanContext) ? raw.spanContext : isObj(raw._spanContext) ? raw._spanContext : {};
  const traceId = readId(context.traceId, 'trace id (spanContext.traceId)', 16) ?? ids.traceId;
  const spanId = readId(context.spanId, 'span id (spanContext.spanId)', 8) ?? ids.spanId;
  const end = raw.endTime ?? (isHrTime(raw.duration) ? addHr(raw.startTime as number[], raw.duration as number[]) : undefined);
  const { startTime, endTime } = spanTimes(raw.startTime, end, 'startTime, endTime');
  const parent = raw.parentSpanId ?? (isObj(raw.parentSpanContext) ? raw.parentSpanContext.spanId : undefined);
  const status = isObj(raw.status) ? raw.status : {};
  const resource = isObj(raw.resource) ? (raw.resource.attributes ?? raw.resource._attributes) : undefined;
  const library = raw.instrumentationScope ?? raw.instrumentationLibrary;
  const scope = isObj(library) ? library.name : undefined;
  return {
    traceId,
    spanId,
    parentSpanId: readId(parent, 'parent span id (parentSpanId)', 8),
    name: nameOf(raw.name),
    // The JS API counts kinds from INTERNAL = 0; OTLP from UNSPECIFIED = 0.
    kind: decodeSpanKind(typeof raw.kind === 'number' ? raw.kind + 1 : raw.kind),
    startTime,
    endTime,
    status: statusOf(status.code, status.message),
    attributes: flatAttributes(raw.attributes),
    resource: flatAttributes(resource),
    scope: typeof scope === 'string' ? scope : undefined,
    events: readEvents(raw.events, startTime),
  };
}

const addHr = (a: number[], b: number[]) => [a[0]! + b[0]!, a[1]! + b[1]!];

/**
 * Every span of a console dump at `base` (undefined: objects back to back, no place to name); a span printed more than
 * once is read once, as its last print with an end time (a print at its start has `end_time: null`).
 */
export function* otelConsoleSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  const list = Array.isArray(doc) ? doc : [doc];
  const listPath = Array.isArray(doc) ? base : undefined;
  const traceId = contentId(list, 16);
  const kept = lastEndedPrints(list);
  const decode = (raw: unknown, i: number) => {
    if (!kept.has(i)) return undefined;
    const span = isPythonSpan(raw) ? decodePythonSpan(raw) : decodeJsSpan(raw, { traceId, spanId: (i + 1).toString(16).padStart(16, '0') });
    return placed(span, listPath, i);
  };
  yield* decodeList(list, listPath, decode, (r) => (isObj(r.context) ? r.context.span_id : r.name), warnings, where);
}

/**
 * The indices of the prints to read: per Python span (trace and span id as printed), its last print with an end time,
 * or its last print when none has one (then read, and refused for its missing end: it never ended). Others: all.
 */
function lastEndedPrints(list: readonly unknown[]): Set<number> {
  const chosen = new Map<string, { index: number; ended: boolean }>();
  const others: number[] = [];
  list.forEach((raw, index) => {
    if (!isPythonSpan(raw)) return void others.push(index);
    const context = raw.context as Obj;
    const key = `${String(context.trace_id)}/${String(context.span_id)}`;
    const ended = raw.end_time !== null && raw.end_time !== undefined;
    const before = chosen.get(key);
    if (!before || ended || !before.ended) chosen.set(key, { index, ended });
  });
  return new Set([...others, ...[...chosen.values()].map((c) => c.index)]);
}
