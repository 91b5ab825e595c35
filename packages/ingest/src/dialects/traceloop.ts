/**
 * OpenLLMetry / Traceloop: `traceloop.span.kind`, `traceloop.entity.*`, `traceloop.workflow.name`, and the span-name
 * suffixes `.workflow` / `.graph` / `.agent` / `.task` / `.tool` / `.chat` / `.completion` / `.embeddings`.
 */
import type { SpanRecord } from '../span.js';
import { isObj, parseJsonMaybe, parseJsonOrPython } from '../messages.js';
import type { Classification, Dialect } from './types.js';

const KINDS: Record<string, Classification> = {
  workflow: { kind: 'mas' },
  graph: { kind: 'mas' },
  agent: { kind: 'agent' },
  task: { kind: 'task' },
  tool: { kind: 'tool' },
  chat: { kind: 'llm', operation: 'chat' },
  completion: { kind: 'llm', operation: 'text_completion' },
  embeddings: { kind: 'llm', operation: 'embeddings' },
  llm: { kind: 'llm', operation: 'chat' },
};

/** The suffix after the last dot of a span name, when it is one of the known kinds. */
function nameSuffixKind(name: string): Classification | undefined {
  const dot = name.lastIndexOf('.');
  const suffix = name.slice(dot + 1);
  return dot > 0 && Object.hasOwn(KINDS, suffix) ? KINDS[suffix] : undefined; // `X.constructor` is no kind
}

/** `RunnableSequence.task` → `RunnableSequence`; names without a known suffix are kept. */
export function stripKindSuffix(name: string): string {
  return nameSuffixKind(name) ? name.slice(0, name.lastIndexOf('.')) : name;
}

/**
 * Tool arguments as LangChain/ioa decorators record them: `{"input_str": "{'query': …}"}`, `{"inputs": …}` or
 * `{"args": [], "kwargs": {…}}` → the arguments object.
 */
export function unwrapEntityInput(value: unknown): unknown {
  const v = parseJsonMaybe(value);
  if (!isObj(v)) return v;
  if (typeof v.input_str === 'string') return parseJsonOrPython(v.input_str);
  if (v.inputs !== undefined) return v.inputs;
  if ('kwargs' in v && Array.isArray(v.args)) return v.args.length === 0 ? v.kwargs : { args: v.args, kwargs: v.kwargs };
  return v;
}

/**
 * A span's `traceloop.entity.output` parsed, once: its call id and its result are both read from it, and a LangChain
 * ToolMessage holds the whole tool output (megabytes in all for a big trace).
 */
const parsedOutputs = new WeakMap<SpanRecord, { text: unknown; value: unknown }>();
function entityOutput(span: SpanRecord): unknown {
  const text = span.attributes['traceloop.entity.output'];
  const known = parsedOutputs.get(span);
  if (known && known.text === text) return known.value;
  const value = parseJsonMaybe(text);
  parsedOutputs.set(span, { text, value });
  return value;
}

/** Tool results wrapped as a LangChain `ToolMessage` (`{"output": {"kwargs": {"content": …}}}`) → the content. */
export function unwrapEntityOutput(value: unknown): unknown {
  const v = parseJsonMaybe(value);
  if (!isObj(v)) return v;
  const out = isObj(v.output) ? v.output : undefined;
  if (out && isObj(out.kwargs) && out.kwargs.content !== undefined) return parseJsonMaybe(out.kwargs.content);
  if (v.output !== undefined && Object.keys(v).length === 1) return v.output;
  return v;
}

const entityName = (span: SpanRecord) => span.attributes['traceloop.entity.name'];

/** The call id a LangChain ToolMessage output carries (`output.kwargs.tool_call_id`): the request this tool answered. */
function entityToolCallId(span: SpanRecord): string | undefined {
  const v = entityOutput(span);
  const out = isObj(v) && isObj(v.output) ? v.output : undefined;
  const id = out && isObj(out.kwargs) ? out.kwargs.tool_call_id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export const traceloop: Dialect = {
  name: 'traceloop',
  classify(span) {
    const k = span.attributes['traceloop.span.kind'];
    return (typeof k === 'string' && Object.hasOwn(KINDS, k) ? KINDS[k] : undefined) ?? nameSuffixKind(span.name);
  },
  fields: {
    toolName: [entityName],
    toolCallId: [entityToolCallId],
    toolArguments: [(s) => (s.attributes['traceloop.entity.input'] === undefined ? undefined : unwrapEntityInput(s.attributes['traceloop.entity.input']))],
    toolResult: [(s) => (s.attributes['traceloop.entity.output'] === undefined ? undefined : unwrapEntityOutput(entityOutput(s)))],
    agentName: [entityName],
    taskName: [entityName],
    workflowName: ['traceloop.workflow.name'],
    input: ['traceloop.entity.input'],
    output: ['traceloop.entity.output'],
  },
};
