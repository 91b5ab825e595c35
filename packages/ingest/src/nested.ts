/**
 * One call seen as two nested spans: an LLM span directly inside an LLM span (a framework span around the provider
 * client's span: LangChain's `ChatOpenAI.chat` around the OpenAI client's `openai.chat`), a tool span directly inside
 * a tool span of the same tool name (MCP client + server spans, `execute_tool` around `tools/call`). The outer span is
 * the call and takes from the inner one what it did not record: its tokens count once.
 *
 * The normaliser folds the spans it reads together (normalise.ts). The store folds the calls of two parts of a session
 * when the inner span's part named the outer span as its missing parent (ingest/parts.ts), by the same rules: the LLM
 * rule below is the normaliser's own; the tool rule is its "first span that recorded the field, outer first" over the
 * two calls.
 */
import { hasControlCharacter } from '@mce/core';
import type { Call, ElementError, LLMCall, MCPCallInfo, Message, Status, ToolCall, ToolDefinition, TokenUsage } from '@mce/core';
import { field, stringField, type Field } from './dialects/index.js';
import { callSpan } from './links.js';

/** What an inner LLM span (or the call made of it) gives the outer call; the lists are read only when needed. */
export interface InnerLlm {
  requestModel: string | undefined;
  responseModel: string | undefined;
  provider: string | undefined;
  /** Read once per inner span, always (a bad count in it is said, merged or not). */
  usage: TokenUsage;
  inputMessages(): Message[];
  outputMessages(): Message[];
  finishReasons(): string[];
  toolDefinitions(): ToolDefinition[];
  status: Status;
  error?: ElementError | undefined;
}

/**
 * Fold an inner LLM span into the outer call `c` (changed in place, `c.usage` included). Nested spans of the same call
 * fill what the outer span did not record. The provider is the inner span's when it names one: it is the client
 * closest to the API (a LangChain span says "Langchain").
 */
export function foldInnerLlm(c: LLMCall, inner: InnerLlm): void {
  if (c.requestModel === undefined && inner.requestModel !== undefined) c.requestModel = inner.requestModel;
  if (c.responseModel === undefined && inner.responseModel !== undefined) c.responseModel = inner.responseModel;
  if (inner.provider !== undefined) c.provider = inner.provider;
  // The inner span's counts when the outer one reported none (or 0), unless the inner one reported none either.
  if (c.usage.reported === false || (c.usage.totalTokens === 0 && inner.usage.reported !== false)) c.usage = inner.usage;
  else {
    // The same call's counts: the cache and reasoning breakdown the outer span left at 0 (they lower or explain the
    // cost) comes from the inner one.
    for (const k of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const) {
      if (c.usage[k] === 0 && inner.usage[k] > 0) c.usage[k] = inner.usage[k];
    }
  }
  if (!c.inputMessages.length) c.inputMessages = inner.inputMessages();
  if (!c.outputMessages.length) c.outputMessages = inner.outputMessages();
  if (!c.finishReasons.length) c.finishReasons = inner.finishReasons();
  if (!c.toolDefinitions.length) c.toolDefinitions = inner.toolDefinitions();
  if (inner.status === 'error' && c.status !== 'error') {
    c.status = 'error';
    if (inner.error !== undefined) c.error = inner.error;
  }
}

/** Whether the normaliser makes one call of these two spans, `inner` directly inside `outer` (no call between them). */
export function foldsInto(outer: Call, inner: Call): boolean {
  if (outer.kind === 'LLMCall') return inner.kind === 'LLMCall';
  return outer.kind === 'ToolCall' && inner.kind === 'ToolCall' && outer.toolName === inner.toolName;
}

/** `inner` (an LLM call of another part) folded into a copy of `outer`. */
export function foldLlmCalls(outer: LLMCall, inner: LLMCall): LLMCall {
  const c: LLMCall = { ...outer, usage: { ...outer.usage } };
  foldInnerLlm(c, {
    requestModel: inner.requestModel,
    responseModel: inner.responseModel,
    provider: inner.provider,
    usage: { ...inner.usage },
    inputMessages: () => inner.inputMessages,
    outputMessages: () => inner.outputMessages,
    finishReasons: () => inner.finishReasons,
    toolDefinitions: () => inner.toolDefinitions,
    status: inner.status,
    error: inner.error,
  });
  return c;
}

/**
 * `inner` (a tool call of another part, the same tool) folded into a copy of `outer`, as the normaliser builds the
 * call of both spans: each field from the first span that recorded it, outer first (a call's attributes are its span's,
 * so they tell what the span recorded); an error on the inner span is the call's error too; the MCP method of the
 * first span that has one, the server and resource of the first span that names them.
 */
export function foldToolCalls(outer: ToolCall, inner: ToolCall): ToolCall {
  const o = callSpan(outer);
  const i = callSpan(inner);
  const recorded = (span: typeof o, f: Field) => field(span, f) !== undefined;
  const t: ToolCall = { ...outer };
  if (inner.status === 'error' && t.status !== 'error') {
    t.status = 'error';
    if (inner.error !== undefined) t.error = inner.error;
  }
  const put = <K extends 'toolCallId' | 'arguments' | 'result'>(key: K, value: ToolCall[K]): void => {
    if (value === undefined) delete t[key];
    else t[key] = value;
  };
  const recordedOnly = (f: Field) => (recorded(o, f) ? outer : recorded(i, f) ? inner : undefined);
  // A call id neither span recorded came from a span inside the inner one, or from the model's request in the part of
  // each: the outer call's first.
  put('toolCallId', (recordedOnly('toolCallId') ?? outer).toolCallId ?? inner.toolCallId);
  // Without tool arguments (result) on either span, those of a span inside the inner one, else the outer span's input
  // (output). An inner call's value its span did not record, while it recorded an input (output), is taken for that.
  for (const [key, f, fallback] of [['arguments', 'toolArguments', 'input'], ['result', 'toolResult', 'output']] as const) {
    const from = recordedOnly(f) ?? (inner[key] !== undefined && !recorded(i, fallback) ? inner : outer);
    put(key, from[key]);
  }
  const definition = outer.definition ?? inner.definition;
  if (definition !== undefined) t.definition = definition;
  const method = outer.mcp ?? inner.mcp;
  if (method !== undefined) {
    const mcp: MCPCallInfo = { kind: method.kind, ...(method.method === undefined ? {} : { method: method.method }) };
    const server = serverOf(outer, o) ?? serverOf(inner, i);
    if (server !== undefined) mcp.server = server;
    const uri = outer.mcp?.uri ?? stringField(o, 'mcpResourceUri') ?? inner.mcp?.uri ?? stringField(i, 'mcpResourceUri');
    if (uri !== undefined) mcp.uri = uri;
    t.mcp = mcp;
  }
  return t;
}

/** The MCP server a tool call's span names (the normaliser's, when it made the call an MCP call). */
function serverOf(call: ToolCall, span: ReturnType<typeof callSpan>): string | undefined {
  if (call.mcp !== undefined) return call.mcp.server;
  const named = stringField(span, 'mcpServer');
  return named === undefined || hasControlCharacter(named) ? undefined : named;
}
