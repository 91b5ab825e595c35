/**
 * Arize Phoenix / OpenInference span JSON: a list of spans `{name, context: {trace_id, span_id}, span_kind,
 * parent_id, start_time, end_time, status_code, status_message, attributes, events}` (the span JSON of Phoenix's
 * client and REST API, also as `{data: [...]}`), and the spans dataframe (`get_spans_dataframe().to_json()`) with
 * flat columns `context.span_id`, `attributes.llm.model_name`, …, as records or as columns (pandas' default, the index
 * being the span id). The span kind is written as `openinference.span.kind` where the attributes lack it.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeSpanKind, decodeStatusCode } from '../values.js';
import { decodeList, flatAttributes, nameOf, placed, readEvents, readId, setAttribute, spanTimes, type Obj } from './common.js';
import type { Where } from './otlp.js';

const isPhoenixSpan = (v: unknown): v is Obj => isObj(v) && isObj(v.context) && 'span_kind' in v && 'start_time' in v;
const isDataframeRecord = (v: unknown): v is Obj => isObj(v) && 'context.span_id' in v && 'span_kind' in v;
/** pandas' `orient="columns"`: every column an object from the index to the value. */
const isDataframeColumns = (v: unknown): v is Obj => isObj(v) && isObj(v.span_kind) && isObj(v.start_time) && isObj(v.name);

/** A list of Phoenix spans (also under `data`), or the spans dataframe as records or columns. */
export function isPhoenix(doc: unknown): boolean {
  const list = isObj(doc) && Array.isArray(doc.data) ? doc.data : doc;
  if (Array.isArray(list)) return list.length > 0 && (isPhoenixSpan(list[0]) || isDataframeRecord(list[0]));
  return isPhoenixSpan(list) || isDataframeColumns(list);
}

/** A dataframe row `{"context.span_id": …, "attributes.llm.model_name": …}` → the span JSON shape. */
function fromRow(row: Obj, index?: string): Obj {
  const attributes: Obj = isObj(row.attributes) ? { ...row.attributes } : {};
  const span: Obj = { attributes, context: {} };
  for (const [k, v] of Object.entries(row)) {
    if (k.startsWith('attributes.')) {
      if (v !== null && v !== undefined) setAttribute(attributes, k.slice('attributes.'.length), v);
    } else if (k.startsWith('context.')) (span.context as Obj)[k.slice('context.'.length)] = v;
    else if (k !== 'attributes') span[k] = v;
  }
  const context = span.context as Obj;
  if (context.span_id === undefined && index !== undefined) context.span_id = index;
  return span;
}

/** The columns shape → one row per index value. */
function columnRows(columns: Obj): Obj[] {
  const index = Object.keys(columns.span_kind as Obj);
  return index.map((i) => {
    const row: Obj = {};
    for (const [k, col] of Object.entries(columns)) if (isObj(col)) row[k] = col[i];
    return fromRow(row, i);
  });
}

function decodePhoenixSpan(raw: unknown): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isObj(raw)) throw new TypeError('span is not an object');
  const span = isObj(raw.context) ? raw : fromRow(raw);
  const context = span.context as Obj;
  const traceId = readId(context.trace_id, 'trace id (context.trace_id)', 16);
  const spanId = readId(context.span_id, 'span id (context.span_id)', 8);
  if (!traceId) throw new TypeError('span has no trace id (context.trace_id)');
  if (!spanId) throw new TypeError('span has no span id (context.span_id)');
  const { startTime, endTime } = spanTimes(span.start_time, span.end_time, 'start_time, end_time');
  const attributes = flatAttributes(span.attributes);
  if (attributes['openinference.span.kind'] === undefined && typeof span.span_kind === 'string' && span.span_kind !== '') {
    attributes['openinference.span.kind'] = span.span_kind.toUpperCase();
  }
  const message = span.status_message;
  const code = decodeStatusCode(span.status_code);
  return {
    traceId,
    spanId,
    parentSpanId: readId(span.parent_id, 'parent span id (parent_id)', 8),
    name: nameOf(span.name),
    kind: decodeSpanKind(span.kind),
    startTime,
    endTime,
    status: typeof message === 'string' && message !== '' ? { code, message } : { code },
    attributes,
    resource: {},
    scope: undefined,
    events: readEvents(span.events, startTime),
  };
}

/** Every span of a Phoenix document at `base` in its file (undefined: not known). */
export function* phoenixSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  const wrapped = isObj(doc) && Array.isArray(doc.data);
  const list = wrapped ? (doc.data as unknown[]) : doc;
  if (!Array.isArray(list)) {
    // Columns have no place per span in the text: their warnings name the file.
    const rows = isDataframeColumns(list) ? columnRows(list) : [list];
    yield* decodeList(rows, undefined, (raw) => decodePhoenixSpan(raw), (r) => (r.context as Obj | undefined)?.span_id ?? r.name, warnings, where);
    return;
  }
  const listPath = base === undefined ? undefined : wrapped ? [...base, 'data'] : base;
  yield* decodeList(list, listPath, (raw, i) => placed(decodePhoenixSpan(raw), listPath, i), (r) => (isObj(r.context) ? r.context.span_id : r['context.span_id']) ?? r.name, warnings, where);
}
