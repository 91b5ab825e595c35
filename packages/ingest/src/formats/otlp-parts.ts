/**
 * Pieces of an OTLP request written on their own in protojson: one `Span`, a list of them, a `ScopeSpans`
 * (`{scope, spans}`), a `ResourceSpans` (`{resource, scopeSpans}`), or a list of those (test fixtures and SDK
 * debug dumps keep them so). A span without ids (a fixture that cleared them) gets ids made from the file's content,
 * the same on every read; one whose times were both cleared is read at the epoch, lasting nothing, and said
 * (`no-times`): its durations mean nothing.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeKeyValues } from '../values.js';
import { contentId, decodeList, type Obj } from './common.js';
import { decodeOtlpSpan, warnAt, type Where } from './otlp.js';

const isKeyValueList = (v: unknown) => Array.isArray(v) && v.length > 0 && isObj(v[0]) && typeof v[0].key === 'string' && isObj(v[0].value);

/** A protojson Span: a name and at least one field only a Span has. */
const isSpan = (v: unknown): v is Obj =>
  isObj(v) &&
  typeof v.name === 'string' &&
  ('spanId' in v || 'span_id' in v || 'startTimeUnixNano' in v || 'start_time_unix_nano' in v || isKeyValueList(v.attributes) || (typeof v.kind === 'string' && v.kind.startsWith('SPAN_KIND_')));
const isScopeSpans = (v: unknown): v is Obj => isObj(v) && Array.isArray(v.spans) && ('scope' in v || 'instrumentationLibrary' in v || v.spans.some(isSpan));
const isResourceSpans = (v: unknown): v is Obj => isObj(v) && (Array.isArray(v.scopeSpans) || Array.isArray(v.scope_spans)) && !('resourceSpans' in v);

type Part = 'span' | 'scope' | 'resource';
const partOf = (v: unknown): Part | undefined => (isResourceSpans(v) ? 'resource' : isScopeSpans(v) ? 'scope' : isSpan(v) ? 'span' : undefined);

/** A Span, ScopeSpans or ResourceSpans, or a list of one of them. */
export function isOtlpPart(doc: unknown): boolean {
  const first = Array.isArray(doc) ? doc[0] : doc;
  return partOf(first) !== undefined;
}

/** A span list with where it is and what it belongs to. */
interface SpanList {
  spans: unknown[];
  path: JsonPath | undefined;
  resource: Obj;
  scope: string | undefined;
}

const at = (base: JsonPath | undefined, ...keys: (string | number)[]): JsonPath | undefined => (base === undefined ? undefined : [...base, ...keys]);

function scopeList(ss: Obj, resource: Obj, path: JsonPath | undefined): SpanList {
  const sc = ss.scope ?? ss.instrumentationLibrary;
  return { spans: ss.spans as unknown[], path: at(path, 'spans'), resource, scope: isObj(sc) && typeof sc.name === 'string' ? sc.name : undefined };
}

function resourceLists(rs: Obj, path: JsonPath | undefined): SpanList[] {
  const resource = decodeKeyValues(isObj(rs.resource) ? rs.resource.attributes : undefined);
  const key = Array.isArray(rs.scopeSpans) ? 'scopeSpans' : 'scope_spans';
  return (rs[key] as unknown[]).flatMap((ss, j) => (isObj(ss) && Array.isArray(ss.spans) ? [scopeList(ss, resource, at(path, key, j))] : []));
}

/** The span lists of a document of parts at `base`. */
function lists(doc: unknown, base: JsonPath | undefined): SpanList[] {
  const items = Array.isArray(doc) ? doc : [doc];
  const part = partOf(items[0]);
  if (part === 'span') return [{ spans: items, path: Array.isArray(doc) ? base : undefined, resource: {}, scope: undefined }];
  const itemPath = (i: number) => (Array.isArray(doc) ? at(base, i) : base);
  return items.flatMap((item, i) => {
    if (part === 'scope' && isScopeSpans(item)) return [scopeList(item, {}, itemPath(i))];
    if (part === 'resource' && isResourceSpans(item)) return resourceLists(item, itemPath(i));
    return [];
  });
}

/** Every span of a document of OTLP parts at `base` in its file (undefined: not known). */
export function* otlpPartSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  const traceId = contentId(doc, 16);
  let n = 0;
  for (const list of lists(doc, base)) {
    const decode = (raw: unknown, i: number): SpanRecord => {
      n++;
      const withIds = isObj(raw) ? withMissingIds(raw, traceId, n) : raw;
      const span = decodeOtlpSpan(withIds, list.resource, list.scope, list.path, list.path === undefined ? undefined : i, true);
      if (span.startTime === 0) {
        const warning = { code: 'no-times' as const, message: `span ${span.spanId} (${span.name}) has no start or end time (both unset): read at the epoch, lasting 0 ms; its durations mean nothing`, span: span.spanId, file: where.file };
        warnAt(warnings, where, warning, () => (list.path === undefined ? undefined : [...list.path, i]));
      }
      return span;
    };
    yield* decodeList(list.spans, list.path, decode, (r) => r.spanId ?? r.name, warnings, where);
  }
}

/** The span with the trace and span ids it lacks (a made-up span id is its place in the file). */
function withMissingIds(raw: Obj, traceId: string, n: number): Obj {
  const hasTrace = Boolean(raw.traceId ?? raw.trace_id);
  const hasSpan = Boolean(raw.spanId ?? raw.span_id);
  if (hasTrace && hasSpan) return raw;
  return { ...raw, ...(hasTrace ? {} : { traceId }), ...(hasSpan ? {} : { spanId: n.toString(16).padStart(16, '0') }) };
}
