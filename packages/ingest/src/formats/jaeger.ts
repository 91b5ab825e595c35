/**
 * Jaeger JSON, as the UI's "Download JSON" and the query API (`/api/traces`) write it: `{data: [trace…]}`, a list of
 * traces, or one trace `{traceID, spans, processes}`. Tags are `{key, type, value}`; the tags Jaeger adds for OTLP
 * fields (`span.kind`, `otel.scope.name`, `otel.status_code`, …) become those fields again; the parent is the first
 * `CHILD_OF` reference (else the first reference of the same trace). Times are microseconds.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeSpanKind, decodeStatusCode } from '../values.js';
import { decodeList, nameOf, placed, readId, setAttribute, spanTimes, type Obj } from './common.js';
import type { Where } from './otlp.js';

const isTrace = (v: unknown): v is Obj => isObj(v) && Array.isArray(v.spans) && (isObj(v.processes) || typeof v.traceID === 'string');

/** A Jaeger document: `{data: [traces]}`, a list of traces, or one trace. */
export function isJaeger(doc: unknown): boolean {
  if (isObj(doc) && Array.isArray(doc.data)) return doc.data.length === 0 ? 'errors' in doc || 'total' in doc : doc.data.some(isTrace);
  if (Array.isArray(doc)) return doc.length > 0 && doc.every(isTrace);
  return isTrace(doc);
}

/** The tags Jaeger writes for fields of an OTLP span: read as those fields, not kept as attributes. */
const OTLP_FIELD_TAGS = new Set(['span.kind', 'otel.scope.name', 'otel.scope.version', 'otel.library.name', 'otel.library.version', 'otel.status_code', 'otel.status_description', 'internal.span.format']);

/** `[{key, type, value}]` → attributes (an `int64` written as a string becomes a number when it is one exactly). */
export function jaegerTags(tags: unknown, out: Obj = {}, skip?: ReadonlySet<string>): Obj {
  if (!Array.isArray(tags)) return out;
  for (const t of tags) {
    if (!isObj(t) || typeof t.key !== 'string' || skip?.has(t.key)) continue;
    setAttribute(out, t.key, tagValue(t));
  }
  return out;
}

function tagValue(t: Obj): unknown {
  const v = t.value;
  if ((t.type === 'int64' || t.type === 'float64') && typeof v === 'string' && v.trim() !== '' && Number.isSafeInteger(Number(v))) return Number(v);
  if (t.type === 'bool' && typeof v === 'string') return v === 'true';
  return v;
}

const tag = (tags: unknown, key: string): unknown => (Array.isArray(tags) ? tags.find((t) => isObj(t) && t.key === key)?.value : undefined);

/**
 * The parent span id: the first CHILD_OF reference within the span's trace, else its first reference within the trace
 * (FOLLOWS_FROM), as Jaeger picks it; a reference to another trace is a link, not a parent.
 */
function parentOf(span: Obj, traceId: unknown): string | undefined {
  const refs = Array.isArray(span.references) ? span.references.filter(isObj) : [];
  const own = refs.filter((r) => r.traceID === undefined || r.traceID === (span.traceID ?? traceId));
  const ref = own.find((r) => String(r.refType ?? '').toUpperCase() === 'CHILD_OF') ?? own[0];
  if (ref) return readId(ref.spanID, 'parent span id (references[].spanID)', 8);
  return readId(span.parentSpanID, 'parent span id (parentSpanID)', 8);
}

function statusOf(tags: unknown): SpanRecord['status'] {
  const code = tag(tags, 'otel.status_code');
  const error = tag(tags, 'error');
  const message = tag(tags, 'otel.status_description');
  const c = code !== undefined ? decodeStatusCode(code) : error === true || error === 'true' ? 'error' : 'unset';
  return typeof message === 'string' && message !== '' ? { code: c, message } : { code: c };
}

function decodeJaegerSpan(raw: unknown, processes: Obj, traceId: unknown): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isObj(raw)) throw new TypeError('span is not an object');
  const trace = readId(raw.traceID ?? traceId, 'trace id (traceID)', 16);
  const spanId = readId(raw.spanID, 'span id (spanID)', 8);
  if (!trace) throw new TypeError('span has no trace id (traceID)');
  if (!spanId) throw new TypeError('span has no span id (spanID)');
  const start = raw.startTime;
  const duration = typeof raw.duration === 'number' ? raw.duration : Number(raw.duration);
  if (!Number.isFinite(duration) || duration < 0) throw new TypeError('span has no readable duration (duration, µs)');
  const { startTime, endTime } = spanTimes(toMicros(start), toMicros(start) + duration, 'startTime, duration');
  const process = isObj(raw.process) ? raw.process : isObj(processes[String(raw.processID)]) ? (processes[String(raw.processID)] as Obj) : {};
  const resource = jaegerTags(process.tags);
  if (typeof process.serviceName === 'string' && resource['service.name'] === undefined) resource['service.name'] = process.serviceName;
  const scope = tag(raw.tags, 'otel.scope.name') ?? tag(raw.tags, 'otel.library.name');
  return {
    traceId: trace,
    spanId,
    parentSpanId: parentOf(raw, traceId),
    name: nameOf(raw.operationName),
    kind: decodeSpanKind(tag(raw.tags, 'span.kind')),
    startTime,
    endTime,
    status: statusOf(raw.tags),
    attributes: jaegerTags(raw.tags, {}, OTLP_FIELD_TAGS),
    resource,
    scope: typeof scope === 'string' ? scope : undefined,
    events: jaegerLogs(raw.logs, startTime),
  };
}

/** Jaeger's start time in µs as a number of µs, in whatever form (epoch µs; read as is). */
const toMicros = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

/** Logs `{timestamp (µs), fields: [tags]}` → events, named by their `event` field. */
function jaegerLogs(logs: unknown, start: number): SpanRecord['events'] {
  if (!Array.isArray(logs)) return [];
  return logs.filter(isObj).map((l) => {
    const attributes = jaegerTags(l.fields);
    const name = attributes.event;
    delete attributes.event;
    return { name: typeof name === 'string' ? name : '', time: typeof l.timestamp === 'number' ? l.timestamp / 1e3 : start, attributes };
  });
}

/** The traces of a Jaeger document, each with where it is. */
function traces(doc: unknown, base: JsonPath): [Obj, JsonPath][] {
  if (isObj(doc) && Array.isArray(doc.data)) return doc.data.flatMap((t, i) => (isObj(t) ? [[t, [...base, 'data', i]] as [Obj, JsonPath]] : []));
  if (Array.isArray(doc)) return doc.flatMap((t, i) => (isObj(t) ? [[t, [...base, i]] as [Obj, JsonPath]] : []));
  return isObj(doc) ? [[doc, base]] : [];
}

/**
 * Every span of a Jaeger document at `base` in its file (undefined: its place is not known); a span that cannot be
 * read is a warning naming it.
 */
export function* jaegerSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  for (const [trace, path] of traces(doc, base ?? [])) {
    const processes = isObj(trace.processes) ? trace.processes : {};
    const spans = Array.isArray(trace.spans) ? trace.spans : [];
    const listPath = base === undefined ? undefined : [...path, 'spans'];
    yield* decodeList(spans, listPath, (raw, i) => placed(decodeJaegerSpan(raw, processes, trace.traceID), listPath, i), (r) => r.spanID ?? r.operationName, warnings, where);
  }
}
