/**
 * Langfuse trace export: `{trace, observations}` (the UI's download, `GET /api/public/traces/{id}`), a list of them,
 * or `{data: [...]}`. Each observation is a span: its id, `parentObservationId`, `traceId`, times.
 *
 * An app that sent OpenTelemetry has its span attributes under `metadata.attributes`: they are kept as they are and
 * the dialects read them. Otherwise (the Langfuse SDKs' own observations) the observation's type and fields are
 * written as the GenAI attributes the normaliser reads: GENERATION → a `chat` call with `gen_ai.request.model` and
 * `gen_ai.usage.*` from `usageDetails`, TOOL → `execute_tool` with its input and output as arguments and result,
 * AGENT → `invoke_agent` (openai-agents' root `Agent workflow` → `invoke_workflow`: langfuse-workflow.ts); the cost Langfuse computed (`costDetails`) as `gen_ai.usage.cost` / `input_cost` /
 * `output_cost`. The trace's session and user go on every span as `langfuse.session.id` / `langfuse.user.id`.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { decodeInt } from '../values.js';
import { decodeList, flatAttributes, nameOf, placed, readId, setAttribute, spanTimes, type Obj } from './common.js';
import { isOpenAiAgentsWorkflow, workflowAttributes } from './langfuse-workflow.js';
import type { Where } from './otlp.js';

const isExport = (v: unknown): v is Obj => isObj(v) && Array.isArray(v.observations) && (isObj(v.trace) || typeof v.id === 'string');

/** `{trace, observations}`, a list of them, or `{data: [them]}` (a trace with its observations inline counts too). */
export function isLangfuse(doc: unknown): boolean {
  const list = isObj(doc) && Array.isArray(doc.data) ? doc.data : Array.isArray(doc) ? doc : [doc];
  return list.length > 0 && isExport(list[0]);
}

/** `metadata` may be an object or its JSON text. */
function metadataOf(o: Obj): Obj {
  const m = o.metadata;
  if (isObj(m)) return m;
  if (typeof m === 'string' && m.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(m);
      return isObj(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  return {};
}

/** The first of `keys` that `details` has a count for. */
function count(details: Obj, keys: readonly string[]): number | undefined {
  for (const k of keys) {
    const n = decodeInt(details[k]);
    if (n !== undefined) return n;
  }
  return undefined;
}

const USAGE: readonly [string, readonly string[]][] = [
  ['gen_ai.usage.input_tokens', ['input', 'promptTokens', 'prompt_tokens', 'input_tokens']],
  ['gen_ai.usage.output_tokens', ['output', 'completionTokens', 'completion_tokens', 'output_tokens']],
  ['gen_ai.usage.total_tokens', ['total', 'totalTokens', 'total_tokens']],
  ['gen_ai.usage.cache_read.input_tokens', ['input_cached_tokens', 'cache_read_input_tokens', 'input_cache_read', 'prompt_details.cache_read']],
  ['gen_ai.usage.cache_creation.input_tokens', ['input_cache_creation', 'cache_creation_input_tokens', 'prompt_details.cache_write']],
  ['gen_ai.usage.reasoning.output_tokens', ['output_reasoning_tokens', 'output_reasoning', 'completion_details.reasoning']],
];

const COST: readonly [string, string][] = [
  ['gen_ai.usage.input_cost', 'input'],
  ['gen_ai.usage.output_cost', 'output'],
  ['gen_ai.usage.cost', 'total'],
];

/** A message list as Langfuse holds it: a list, `{messages}`, one message, or text (the assistant's, for output). */
function messages(value: unknown, role: string): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return JSON.stringify([{ role, content: value }]);
  return JSON.stringify(value);
}

const text = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v));

/** The GenAI attributes of an observation the app did not send as OpenTelemetry. */
function mappedAttributes(o: Obj): Obj {
  const a: Obj = {};
  const type = typeof o.type === 'string' ? o.type.toUpperCase() : '';
  if (type === 'GENERATION' || type === 'EMBEDDING') {
    a['gen_ai.operation.name'] = type === 'EMBEDDING' ? 'embeddings' : 'chat';
    if (typeof o.model === 'string' && o.model !== '') a['gen_ai.request.model'] = o.model;
    const usage = isObj(o.usageDetails) ? o.usageDetails : isObj(o.usage) ? o.usage : o;
    for (const [key, names] of USAGE) {
      const n = count(usage, names);
      if (n !== undefined) a[key] = n;
    }
    const input = messages(o.input, 'user');
    const output = messages(o.output, 'assistant');
    if (input !== undefined) a['gen_ai.input.messages'] = input;
    if (output !== undefined) a['gen_ai.output.messages'] = output;
    if (isObj(o.modelParameters) && Object.keys(o.modelParameters).length > 0) a['gen_ai.request.parameters'] = JSON.stringify(o.modelParameters);
  } else if (type === 'TOOL') {
    a['gen_ai.operation.name'] = 'execute_tool';
    a['gen_ai.tool.name'] = nameOf(o.name);
    const args = text(o.input);
    const result = text(o.output);
    if (args !== undefined) a['gen_ai.tool.call.arguments'] = args;
    if (result !== undefined) a['gen_ai.tool.call.result'] = result;
  } else {
    if (type === 'AGENT') {
      a['gen_ai.operation.name'] = 'invoke_agent';
      a['gen_ai.agent.name'] = nameOf(o.name);
    }
    const input = text(o.input);
    const output = text(o.output);
    if (input !== undefined) a['input.value'] = input;
    if (output !== undefined) a['output.value'] = output;
  }
  return a;
}

/** The cost Langfuse priced the observation at (kept whichever way its attributes came). */
function addCost(a: Obj, o: Obj): void {
  const cost = isObj(o.costDetails) ? o.costDetails : {};
  for (const [key, name] of COST) {
    const v = cost[name];
    if (typeof v === 'number' && Number.isFinite(v) && a[key] === undefined) a[key] = v;
  }
}

function decodeObservation(raw: unknown, trace: Obj): Omit<SpanRecord, 'listPath' | 'listIndex'> {
  if (!isObj(raw)) throw new TypeError('observation is not an object');
  const traceId = readId(raw.traceId ?? trace.id, 'trace id (traceId)', 16);
  const spanId = readId(raw.id, 'observation id (id)', 8);
  if (!traceId) throw new TypeError('observation has no trace id (traceId)');
  if (!spanId) throw new TypeError('observation has no id (id)');
  // An EVENT has no end: it lasts no time.
  const { startTime, endTime } = spanTimes(raw.startTime, raw.endTime ?? raw.startTime, 'startTime, endTime');
  const metadata = metadataOf(raw);
  const otel = metadata.attributes;
  const attributes = isObj(otel) && Object.keys(otel).length > 0 ? flatAttributes(otel) : isOpenAiAgentsWorkflow(raw, metadata) ? workflowAttributes(raw) : mappedAttributes(raw);
  addCost(attributes, raw);
  if (typeof raw.type === 'string') setAttribute(attributes, 'langfuse.observation.type', raw.type);
  if (typeof trace.sessionId === 'string' && trace.sessionId !== '') attributes['langfuse.session.id'] = trace.sessionId;
  if (typeof trace.userId === 'string' && trace.userId !== '') attributes['langfuse.user.id'] = trace.userId;
  const error = raw.level === 'ERROR';
  const message = raw.statusMessage;
  return {
    traceId,
    spanId,
    parentSpanId: readId(raw.parentObservationId, 'parent observation id (parentObservationId)', 8),
    name: nameOf(raw.name),
    kind: 'internal',
    startTime,
    endTime,
    status: error ? (typeof message === 'string' && message !== '' ? { code: 'error', message } : { code: 'error' }) : { code: 'unset' },
    attributes,
    resource: typeof trace.environment === 'string' ? { 'deployment.environment.name': trace.environment } : {},
    scope: undefined,
    events: [],
  };
}

/** Every observation of a Langfuse export at `base` in its file (undefined: not known), as spans. */
export function* langfuseSpans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Generator<SpanRecord> {
  const wrapped = isObj(doc) && Array.isArray(doc.data);
  const list = wrapped ? (doc.data as unknown[]) : Array.isArray(doc) ? doc : [doc];
  const listBase = base === undefined ? undefined : wrapped ? [...base, 'data'] : base;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isExport(item)) continue;
    const trace = isObj(item.trace) ? item.trace : item;
    const path = listBase === undefined ? undefined : Array.isArray(doc) || wrapped ? [...listBase, i, 'observations'] : [...listBase, 'observations'];
    const observations = item.observations as unknown[];
    yield* decodeList(observations, path, (raw, j) => placed(decodeObservation(raw, trace), path, j), (r) => r.id ?? r.name, warnings, where);
  }
}
