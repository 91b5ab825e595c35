/**
 * any-agent's `AgentTrace` JSON (`agent_trace.model_dump_json()`): `{spans: [...], final_output}`, each span a Python
 * `ReadableSpan` dump with `context` / `parent` objects whose `trace_id` and `span_id` are decimal integers (128 and 64
 * bits: past what a JS number holds, so the text is parsed again with them quoted), times in epoch nanoseconds.
 * The attributes are GenAI semantic conventions and are kept as they are.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeSpanKind, decodeStatusCode } from '../values.js';
import { decodeList, flatAttributes, nameOf, placed, readEvents, readId, spanTimes, type Obj } from './common.js';
import type { Where } from './otlp.js';

const isAgentSpan = (v: unknown): v is Obj => isObj(v) && isObj(v.context) && 'span_id' in v.context && 'start_time' in v && 'attributes' in v;

/** `{spans: [any-agent span…]}`. */
export const isAnyAgentTrace = (doc: unknown): boolean => isObj(doc) && Array.isArray(doc.spans) && doc.spans.length > 0 && isAgentSpan(doc.spans[0]) && !('resourceSpans' in doc);

/**
 * The document parsed with its integer ids quoted, so that they keep every digit. Only numbers written as the value
 * of a `trace_id` / `span_id` key change: the rest of the text is parsed as it was.
 */
export const parseAnyAgentText = (text: string): unknown => JSON.parse(text.replace(/("(?:trace_id|span_id)"\s*:\s*)(\d+)(?=\s*[,}\]])/g, '$1"$2"'));

function decodeAgentSpan(raw: unknown): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isAgentSpan(raw)) throw new TypeError('span is not an any-agent span (context, start_time, attributes)');
  const context = raw.context as Obj;
  const traceId = readId(context.trace_id, 'trace id (context.trace_id)', 16, true);
  const spanId = readId(context.span_id, 'span id (context.span_id)', 8, true);
  if (!traceId) throw new TypeError('span has no trace id (context.trace_id)');
  if (!spanId) throw new TypeError('span has no span id (context.span_id)');
  const { startTime, endTime } = spanTimes(raw.start_time, raw.end_time, 'start_time, end_time');
  const status = isObj(raw.status) ? raw.status : {};
  const resource = isObj(raw.resource) ? raw.resource : {};
  const message = status.description;
  return {
    traceId,
    spanId,
    parentSpanId: isObj(raw.parent) ? readId(raw.parent.span_id, 'parent span id (parent.span_id)', 8, true) : undefined,
    name: nameOf(raw.name),
    kind: decodeSpanKind(raw.kind),
    startTime,
    endTime,
    status: typeof message === 'string' && message !== '' ? { code: decodeStatusCode(status.status_code), message } : { code: decodeStatusCode(status.status_code) },
    attributes: flatAttributes(raw.attributes),
    resource: flatAttributes(resource.attributes),
    scope: undefined,
    events: readEvents(raw.events, startTime),
  };
}

/** Every span of an any-agent trace at `base` in its file (undefined: not known). */
export function* anyAgentSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  if (!isObj(doc) || !Array.isArray(doc.spans)) return;
  const listPath = base === undefined ? undefined : [...base, 'spans'];
  yield* decodeList(doc.spans, listPath, (raw, i) => placed(decodeAgentSpan(raw), listPath, i), (r) => r.name, warnings, where);
}
