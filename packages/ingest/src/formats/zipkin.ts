/**
 * Zipkin v2 JSON: a list of spans `{traceId, id, parentId, name, kind, timestamp (µs), duration (µs), localEndpoint,
 * tags, annotations}` (what `/api/v2/trace/{id}` answers), or a list of such lists (`/api/v2/traces`). The service is
 * the local endpoint's; OTLP fields that Zipkin keeps as tags (`otel.status_code`, `otel.scope.name`, `error`) are read
 * as those fields.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeSpanKind, decodeStatusCode } from '../values.js';
import { decodeList, nameOf, placed, readId, setAttribute, spanTimes, type Obj } from './common.js';
import type { Where } from './otlp.js';

const isZipkinSpan = (v: unknown): v is Obj =>
  isObj(v) && typeof v.traceId === 'string' && typeof v.id === 'string' && (isObj(v.localEndpoint) || typeof v.timestamp === 'number' || isObj(v.tags));

/** A list of Zipkin v2 spans, or a list of traces (lists of them). */
export function isZipkin(doc: unknown): boolean {
  if (!Array.isArray(doc) || doc.length === 0) return false;
  const first = doc[0];
  return Array.isArray(first) ? first.some(isZipkinSpan) : isZipkinSpan(first);
}

const FIELD_TAGS = new Set(['otel.status_code', 'otel.status_description', 'otel.scope.name', 'otel.scope.version', 'otel.library.name', 'otel.library.version']);

function decodeZipkinSpan(raw: unknown): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isObj(raw)) throw new TypeError('span is not an object');
  const traceId = readId(raw.traceId, 'trace id (traceId)', 16);
  const spanId = readId(raw.id, 'span id (id)', 8);
  if (!traceId) throw new TypeError('span has no trace id (traceId)');
  if (!spanId) throw new TypeError('span has no span id (id)');
  const start = Number(raw.timestamp);
  const duration = raw.duration === undefined ? 0 : Number(raw.duration);
  if (!Number.isFinite(duration) || duration < 0) throw new TypeError('span has no readable duration (duration, µs)');
  const { startTime, endTime } = spanTimes(raw.timestamp, Number.isFinite(start) ? start + duration : undefined, 'timestamp, duration');
  const tags = isObj(raw.tags) ? raw.tags : {};
  const attributes: Obj = {};
  for (const [k, v] of Object.entries(tags)) if (!FIELD_TAGS.has(k)) setAttribute(attributes, k, v);
  const local = isObj(raw.localEndpoint) ? raw.localEndpoint : {};
  const resource: Obj = typeof local.serviceName === 'string' ? { 'service.name': local.serviceName } : {};
  const scope = tags['otel.scope.name'] ?? tags['otel.library.name'];
  return {
    traceId,
    spanId,
    parentSpanId: readId(raw.parentId, 'parent span id (parentId)', 8),
    name: nameOf(raw.name),
    kind: decodeSpanKind(raw.kind),
    startTime,
    endTime,
    status: statusOf(tags),
    attributes,
    resource,
    scope: typeof scope === 'string' ? scope : undefined,
    events: annotations(raw.annotations, startTime),
  };
}

function statusOf(tags: Obj): SpanRecord['status'] {
  const code = tags['otel.status_code'];
  const error = tags.error;
  const c = code !== undefined ? decodeStatusCode(code) : error !== undefined ? 'error' : 'unset';
  const message = tags['otel.status_description'] ?? (typeof error === 'string' && error !== '' && error !== 'true' ? error : undefined);
  return typeof message === 'string' && message !== '' ? { code: c, message } : { code: c };
}

/** Annotations `{timestamp (µs), value}` → events named by their value. */
function annotations(list: unknown, start: number): SpanRecord['events'] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObj).map((a) => ({ name: nameOf(a.value), time: typeof a.timestamp === 'number' ? a.timestamp / 1e3 : start, attributes: {} }));
}

/** Every span of a Zipkin v2 document at `base` in its file (undefined: not known). */
export function* zipkinSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  if (!Array.isArray(doc)) return;
  const lists: [unknown[], JsonPath | undefined][] = Array.isArray(doc[0])
    ? doc.map((t, i) => [Array.isArray(t) ? t : [], base === undefined ? undefined : [...base, i]])
    : [[doc, base]];
  for (const [spans, listPath] of lists) {
    yield* decodeList(spans, listPath, (raw, i) => placed(decodeZipkinSpan(raw), listPath, i), (r) => r.id ?? r.name, warnings, where);
  }
}
