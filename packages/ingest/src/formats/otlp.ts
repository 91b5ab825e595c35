/** OTLP/JSON `ExportTraceServiceRequest` / `TracesData` → common spans. One malformed span is skipped, not fatal. */
import { hasControlCharacter, MAX_EPOCH_MS, quoteControlCharacters } from '@mce/core';
import type { SpanEvent, SpanRecord, SpanStatusCode } from '../span.js';
import { errorMessage, type IngestWarning, type WarningSink } from '../errors.js';
import type { JsonPath, PendingPositions } from '../json-position.js';
import { isObj } from '../messages.js';
import { decodeIdField, decodeKeyValues, decodeSpanKind, decodeStatusCode, nanosToMillis } from '../values.js';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const hasResourceSpans = (v: unknown): boolean => isObj(v) && (Array.isArray(v.resourceSpans) || Array.isArray(v.resource_spans));
const isBatch = (v: unknown): boolean => isObj(v) && (Array.isArray(v.scopeSpans) || Array.isArray(v.scope_spans) || Array.isArray(v.instrumentationLibrarySpans));

/**
 * The request a trace backend's query API wraps, and the key it is under: Jaeger's `/api/v3/traces` answers
 * `{result: request}` (one per line when streamed), Tempo's `/api/v2/traces` `{trace: request}`. None for a request
 * as it is.
 */
function wrappedRequest(v: Record<string, unknown>): { key: 'result' | 'trace'; request: Record<string, unknown> } | undefined {
  if (hasResourceSpans(v)) return undefined;
  for (const key of ['result', 'trace'] as const) {
    const inner = v[key];
    if (isObj(inner) && hasResourceSpans(inner)) return { key, request: inner };
  }
  return undefined;
}

/**
 * True when the value looks like an OTLP request (the shape check of format detection): as exporters send it, as a
 * query API wraps it, or as Tempo's `/api/traces` answers it (`{batches: [resourceSpans…]}`).
 */
export function isOtlpRequest(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (hasResourceSpans(v) || wrappedRequest(v) !== undefined) return true;
  return Array.isArray(v.batches) && v.batches.length > 0 && v.batches.every(isBatch);
}

export interface Where {
  file: string;
  line?: number;
  /**
   * A JSON document whose text is at hand later (the file, read whole; a JSON Lines line, once its record is read):
   * warnings about a place in it wait here for the place's line and column, and `path` is where the request (or rows)
   * read is in that document (none: its root).
   */
  positions?: PendingPositions;
  path?: JsonPath;
}

/**
 * Adds a warning about the place at `path()` (a JSON path from the document's root): when the document's positions
 * are to be found, it is then given the place's line and column. `path` is only called for that, and only for a
 * warning kept.
 */
export function warnAt(warnings: WarningSink, where: Where, warning: IngestWarning, path: () => JsonPath | undefined): void {
  if (where.positions) {
    where.positions.warn(warnings, warning, () => {
      const at = path();
      return at === undefined ? undefined : { path: at };
    });
  } else {
    warnings.add(warning);
  }
}

/** The first of `keys` that `v` has a value for (the spelling a file uses for a field, as `??` picks it). */
const keyOf = (v: Record<string, unknown>, keys: readonly string[]): string | undefined => keys.find((k) => v[k] !== undefined && v[k] !== null);

/**
 * Decode one OTLP span object, item `listIndex` of the list at `listPath` (none: its place is not known); throws on a
 * span that cannot be used (no trace/span id, no start or end time). `untimed`: a span whose times are both unset is
 * read at the epoch, lasting nothing (a bare span whose times were cleared; its reader says so).
 */
export function decodeOtlpSpan(raw: unknown, resource: Record<string, unknown>, scope: string | undefined, listPath: JsonPath | undefined, listIndex: number | undefined, untimed = false): SpanRecord {
  if (!isObj(raw)) throw new TypeError('span is not an object');
  const traceId = decodeIdField(raw, 'trace id', ['traceId', 'trace_id']);
  const spanId = decodeIdField(raw, 'span id', ['spanId', 'span_id']);
  if (!traceId) throw new TypeError('span has no trace id');
  if (!spanId) throw new TypeError('span has no span id');
  // Both times are required; 0 is proto3's unset value, not 1970. A time made up here would become a real Duration
  // (a 56-year session, a 0 ms call in every mean), so such a span is skipped with a warning instead.
  const startRaw = nanosToMillis(raw.startTimeUnixNano ?? raw.start_time_unix_nano);
  const endRaw = nanosToMillis(raw.endTimeUnixNano ?? raw.end_time_unix_nano);
  const cleared = untimed && !startRaw && !endRaw;
  const start = cleared ? 0 : startRaw;
  if (start === undefined) throw new TypeError('span has no start time (startTimeUnixNano)');
  if (start === 0 && !cleared) throw new TypeError('span start time is 0, i.e. unset (startTimeUnixNano)');
  const end = cleared ? 0 : endRaw;
  if (end === undefined) throw new TypeError('span has no end time (endTimeUnixNano)');
  if (end === 0 && !cleared) throw new TypeError('span end time is 0, i.e. unset (endTimeUnixNano)');
  if (start > MAX_EPOCH_MS || end > MAX_EPOCH_MS) throw new TypeError('span time is out of the range of dates (startTimeUnixNano / endTimeUnixNano)');
  const status = isObj(raw.status) ? raw.status : undefined;
  const rawEvents = raw.events;
  let events: SpanEvent[] = NO_EVENTS;
  if (Array.isArray(rawEvents) && rawEvents.length > 0) {
    events = [];
    for (const e of rawEvents) {
      if (!isObj(e)) continue;
      events.push({
        name: typeof e.name === 'string' ? e.name : '',
        time: nanosToMillis(e.timeUnixNano ?? e.time_unix_nano) ?? start,
        attributes: decodeKeyValues(e.attributes),
      });
    }
  }
  const name = raw.name;
  // One fixed shape per span (no conditional spreads): this runs for every span of a big file.
  return {
    traceId,
    spanId,
    parentSpanId: decodeIdField(raw, 'parent span id', ['parentSpanId', 'parent_span_id']),
    name: typeof name === 'string' ? name : name === undefined ? '' : String(name),
    kind: decodeSpanKind(raw.kind),
    startTime: start,
    endTime: end >= start ? end : start,
    status: spanStatus(status?.code, status?.message),
    attributes: decodeKeyValues(raw.attributes),
    resource,
    scope,
    events,
    listPath,
    listIndex,
  };
}

const NO_EVENTS: SpanEvent[] = Object.freeze([]) as unknown as SpanEvent[];
const STATUS: Record<SpanStatusCode, SpanRecord['status']> = {
  ok: Object.freeze({ code: 'ok' }),
  error: Object.freeze({ code: 'error' }),
  unset: Object.freeze({ code: 'unset' }),
};

/** Span status; the common message-less ones are shared objects. */
function spanStatus(code: unknown, message: unknown): SpanRecord['status'] {
  const c = decodeStatusCode(code);
  return typeof message === 'string' && message !== '' ? { code: c, message } : STATUS[c];
}

/** How a warning names a skipped span: its id or name as written, quoted with escapes when it holds a control character. */
export const spanLabel = (label: string): string => (hasControlCharacter(label) ? quoteControlCharacters(label) : label);

/** Every span of one request; malformed spans become counted warnings naming the span. */
export function* otlpSpans(request: unknown, warnings: WarningSink, where: Where): Generator<SpanRecord> {
  if (!isObj(request)) return;
  const wrapped = wrappedRequest(request);
  if (wrapped) {
    yield* otlpSpans(wrapped.request, warnings, { ...where, path: [...(where.path ?? []), wrapped.key] });
    return;
  }
  const resourceSpansKey = keyOf(request, ['resourceSpans', 'resource_spans', 'batches']) ?? 'resourceSpans';
  const resourceSpans = list(request[resourceSpansKey]);
  for (let i = 0; i < resourceSpans.length; i++) {
    const rs = resourceSpans[i];
    if (!isObj(rs)) continue;
    const resource = decodeKeyValues(isObj(rs.resource) ? rs.resource.attributes : undefined);
    const scopeSpansKey = keyOf(rs, ['scopeSpans', 'scope_spans', 'instrumentationLibrarySpans']) ?? 'scopeSpans';
    const scopeSpans = list(rs[scopeSpansKey]);
    for (let j = 0; j < scopeSpans.length; j++) {
      const ss = scopeSpans[j];
      if (!isObj(ss)) continue;
      const sc = ss.scope ?? ss.instrumentationLibrary;
      const scope = isObj(sc) && typeof sc.name === 'string' ? sc.name : undefined;
      const spans = list(ss.spans);
      if (spans.length === 0) continue;
      // Where the spans are in the document: one path for the list, each span adds its index (spanPath).
      const listPath: JsonPath = [...(where.path ?? []), resourceSpansKey, i, scopeSpansKey, j, 'spans'];
      for (let k = 0; k < spans.length; k++) {
        const raw = spans[k];
        try {
          yield decodeOtlpSpan(raw, resource, scope, listPath, k);
        } catch (err) {
          const r = isObj(raw) ? raw : {};
          const id = r.spanId ?? r.span_id;
          const label = spanLabel(typeof id === 'string' ? id : typeof r.name === 'string' ? r.name : '(unnamed)');
          const warning: IngestWarning = {
            code: 'malformed-span',
            message: `skipped span ${label}: ${errorMessage(err)}`,
            span: label,
            file: where.file,
            ...(where.line !== undefined ? { line: where.line } : {}),
          };
          warnAt(warnings, where, warning, () => [...listPath, k]);
        }
      }
    }
  }
}
