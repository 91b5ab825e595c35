/**
 * One hand-built multi-agent session, written in three dialects (current GenAI names, older GenAI/Traceloop
 * names, OpenInference) as OTLP JSON Lines. All three must normalise to the same session.
 *
 * travel_planner (workflow)
 *   triage (agent)        LLM → router JSON {"next": "flight_agent"}      (hand-off)
 *   flight_agent (agent)  MCP tools/list on travel-mcp; LLM → search_flights; MCP tools/call search_flights;
 *                         LLM → book_flight; MCP tools/call book_flight FAILS (SeatUnavailable); LLM → text
 *   notifier (agent)      LLM → send_email; tool send_email; LLM → final answer
 * Cached input tokens on three LLM calls. The session id sits only on the root span (children inherit it through
 * the trace), and the root span is written last, as exporters do.
 */

export type Dialect = 'genai' | 'genai-legacy' | 'openinference';
export const DIALECTS: readonly Dialect[] = ['genai', 'genai-legacy', 'openinference'];

export const SESSION_ID = 'trip-2026-001';
export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const T0 = 1764576000000; // 2025-12-01T08:00:00Z

export const USER_QUESTION = 'Book me a flight from Paris to New York on 1 December.';
export const FLIGHT_SUMMARY = 'AF006 on 1 December is full, so I could not book it. The next flight, AF010 at 13:30, has seats.';
export const FINAL_ANSWER = 'AF006 on 1 December was full, so nothing is booked yet. AF010 at 13:30 has seats; I emailed you the details.';

interface ToolCallSpec {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
interface Msg {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: ToolCallSpec[];
  toolCallId?: string;
}
interface ToolDef {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}
interface Llm {
  input: Msg[];
  output: Msg;
  finish: string;
  usage: { input: number; output: number; cacheRead: number };
  tools: ToolDef[];
}
interface Tool {
  name: string;
  arguments: Record<string, unknown>;
  result?: string;
  mcpServer?: string;
}
export interface NeutralSpan {
  id: string;
  parent?: string;
  name: string;
  start: number;
  end: number;
  kind: 'mas' | 'agent' | 'llm' | 'tool' | 'mcp-list';
  agent?: string;
  llm?: Llm;
  tool?: Tool;
  error?: { type: string; message: string };
  listed?: ToolDef[];
}

const SEARCH: ToolDef = {
  name: 'search_flights',
  description: 'Search flights between two airports on a date.',
  parameters: {
    type: 'object',
    properties: { from: { type: 'string' }, to: { type: 'string' }, date: { type: 'string' } },
    required: ['from', 'to', 'date'],
  },
};
const BOOK: ToolDef = {
  name: 'book_flight',
  description: 'Book a seat on a flight.',
  parameters: { type: 'object', properties: { flight: { type: 'string' } }, required: ['flight'] },
};
const EMAIL: ToolDef = {
  name: 'send_email',
  description: 'Send an email to the traveller.',
  parameters: { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' } }, required: ['to', 'subject'] },
};

const SEARCH_ARGS = { from: 'CDG', to: 'JFK', date: '2026-12-01' };
const SEARCH_RESULT = '{"flights":[{"flight":"AF006","departs":"10:30"},{"flight":"AF010","departs":"13:30"}]}';
const BOOK_ARGS = { flight: 'AF006' };
const BOOK_ERROR = 'SeatUnavailable: no seats left on AF006';
const EMAIL_ARGS = { to: 'traveller@example.com', subject: 'Your flight to New York' };

const id = (n: number) => `a0000000000000${n.toString(16).padStart(2, '0')}`;

const flightSystem: Msg = { role: 'system', content: 'You are the flight agent. Use the travel tools.' };
const flightUser: Msg = { role: 'user', content: USER_QUESTION };
const askSearch: Msg = { role: 'assistant', content: '', toolCalls: [{ id: 'call_sf1', name: 'search_flights', arguments: SEARCH_ARGS }] };
const searchResult: Msg = { role: 'tool', content: SEARCH_RESULT, toolCallId: 'call_sf1' };
const askBook: Msg = { role: 'assistant', content: '', toolCalls: [{ id: 'call_bf1', name: 'book_flight', arguments: BOOK_ARGS }] };
const bookResult: Msg = { role: 'tool', content: `error: ${BOOK_ERROR}`, toolCallId: 'call_bf1' };
const notifySystem: Msg = { role: 'system', content: 'You are the notifier. Email the traveller a summary, then tell them what happened.' };
const notifyUser: Msg = { role: 'user', content: FLIGHT_SUMMARY };
const askEmail: Msg = { role: 'assistant', content: '', toolCalls: [{ id: 'call_se1', name: 'send_email', arguments: EMAIL_ARGS }] };
const emailResult: Msg = { role: 'tool', content: '{"sent":true}', toolCallId: 'call_se1' };

export const SPANS: NeutralSpan[] = [
  { id: id(1), name: 'travel_planner', start: 0, end: 9000, kind: 'mas' },
  { id: id(2), parent: id(1), name: 'triage', start: 10, end: 1000, kind: 'agent', agent: 'triage' },
  {
    id: id(3), parent: id(2), name: 'chat gpt-4o-mini', start: 20, end: 900, kind: 'llm',
    llm: {
      input: [{ role: 'system', content: 'You are the triage agent. Route the traveller to the right specialist.' }, { role: 'user', content: USER_QUESTION }],
      output: { role: 'assistant', content: '{"next": "flight_agent"}' },
      finish: 'stop',
      usage: { input: 820, output: 12, cacheRead: 512 },
      tools: [],
    },
  },
  { id: id(4), parent: id(1), name: 'flight_agent', start: 1100, end: 6000, kind: 'agent', agent: 'flight_agent' },
  { id: id(5), parent: id(4), name: 'tools/list travel-mcp', start: 1110, end: 1150, kind: 'mcp-list', listed: [SEARCH, BOOK] },
  {
    id: id(6), parent: id(4), name: 'chat gpt-4o-mini', start: 1200, end: 2000, kind: 'llm',
    llm: { input: [flightSystem, flightUser], output: askSearch, finish: 'tool_calls', usage: { input: 1040, output: 38, cacheRead: 0 }, tools: [SEARCH, BOOK] },
  },
  { id: id(7), parent: id(4), name: 'search_flights', start: 2010, end: 2600, kind: 'tool', tool: { name: 'search_flights', arguments: SEARCH_ARGS, result: SEARCH_RESULT, mcpServer: 'travel-mcp' } },
  {
    id: id(8), parent: id(4), name: 'chat gpt-4o-mini', start: 2700, end: 3400, kind: 'llm',
    llm: { input: [flightSystem, flightUser, askSearch, searchResult], output: askBook, finish: 'tool_calls', usage: { input: 1210, output: 25, cacheRead: 1024 }, tools: [SEARCH, BOOK] },
  },
  {
    id: id(9), parent: id(4), name: 'book_flight', start: 3410, end: 3900, kind: 'tool',
    tool: { name: 'book_flight', arguments: BOOK_ARGS, mcpServer: 'travel-mcp' },
    error: { type: 'SeatUnavailable', message: BOOK_ERROR },
  },
  {
    id: id(10), parent: id(4), name: 'chat gpt-4o-mini', start: 4000, end: 5900, kind: 'llm',
    llm: {
      input: [flightSystem, flightUser, askSearch, searchResult, askBook, bookResult],
      output: { role: 'assistant', content: FLIGHT_SUMMARY },
      finish: 'stop',
      usage: { input: 1302, output: 61, cacheRead: 1024 },
      tools: [SEARCH, BOOK],
    },
  },
  { id: id(11), parent: id(1), name: 'notifier', start: 6100, end: 8900, kind: 'agent', agent: 'notifier' },
  {
    id: id(12), parent: id(11), name: 'chat gpt-4o-mini', start: 6200, end: 7000, kind: 'llm',
    llm: { input: [notifySystem, notifyUser], output: askEmail, finish: 'tool_calls', usage: { input: 450, output: 48, cacheRead: 0 }, tools: [EMAIL] },
  },
  { id: id(13), parent: id(11), name: 'send_email', start: 7010, end: 7400, kind: 'tool', tool: { name: 'send_email', arguments: EMAIL_ARGS, result: '{"sent":true}' } },
  {
    id: id(14), parent: id(11), name: 'chat gpt-4o-mini', start: 7500, end: 8800, kind: 'llm',
    llm: {
      input: [notifySystem, notifyUser, askEmail, emailResult],
      output: { role: 'assistant', content: FINAL_ANSWER },
      finish: 'stop',
      usage: { input: 520, output: 30, cacheRead: 0 },
      tools: [EMAIL],
    },
  },
];

// ---- OTLP encoding helpers -------------------------------------------------------------------------------------

type AnyValue = Record<string, unknown>;
function anyValue(v: unknown): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { stringValue: JSON.stringify(v) };
}
const kv = (attrs: Record<string, unknown>) => Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));
const nanos = (offsetMs: number) => `${T0 + offsetMs}000000`;
const long = (offsetMs: number) => {
  const ns = BigInt(T0 + offsetMs) * 1000000n;
  return { low: Number(ns & 0xffffffffn) | 0, high: Number(ns >> 32n) | 0, unsigned: false };
};
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

const genaiMessage = (m: Msg) => ({
  role: m.role,
  parts: [
    ...(m.role === 'tool' ? [{ type: 'tool_call_response', id: m.toolCallId, response: m.content }] : m.content ? [{ type: 'text', content: m.content }] : []),
    ...(m.toolCalls ?? []).map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments })),
  ],
});
const flatDef = (d: ToolDef) => ({ type: 'function', name: d.name, description: d.description, parameters: d.parameters });
const openaiDef = (d: ToolDef) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } });

function indexed(prefix: string, msgs: Msg[], inner: string, callInner: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  msgs.forEach((m, i) => {
    const p = `${prefix}.${i}.${inner}`;
    out[`${p}role`] = m.role;
    if (m.content !== '' || !m.toolCalls) out[`${p}content`] = m.content;
    if (m.toolCallId) out[`${p}tool_call_id`] = m.toolCallId;
    (m.toolCalls ?? []).forEach((c, j) => {
      const q = `${p}tool_calls.${j}.${callInner}`;
      out[`${q}id`] = c.id;
      out[`${callInner ? `${q}function.` : q}name`] = c.name;
      out[`${callInner ? `${q}function.` : q}arguments`] = JSON.stringify(c.arguments);
    });
  });
  return out;
}

/** The attributes of one span of the scenario in a dialect (before OTLP encoding: plain values). */
export function attributes(s: NeutralSpan, dialect: Dialect): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  const mcpCall = s.tool?.mcpServer ? { 'mcp.method.name': 'tools/call', 'mcp.server.name': s.tool.mcpServer } : {};
  if (dialect === 'genai') {
    if (s.kind === 'mas') Object.assign(a, { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.conversation.id': SESSION_ID });
    if (s.kind === 'agent') Object.assign(a, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': s.agent });
    if (s.kind === 'llm' && s.llm) {
      const l = s.llm;
      Object.assign(a, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.usage.input_tokens': l.usage.input,
        'gen_ai.usage.output_tokens': l.usage.output,
        'gen_ai.usage.cache_read.input_tokens': l.usage.cacheRead,
        'gen_ai.response.finish_reasons': [l.finish],
        'gen_ai.input.messages': JSON.stringify(l.input.map(genaiMessage)),
        'gen_ai.output.messages': JSON.stringify([genaiMessage(l.output)]),
        ...(l.tools.length ? { 'gen_ai.tool.definitions': JSON.stringify(l.tools.map(flatDef)) } : {}),
      });
    }
    if (s.kind === 'tool' && s.tool) {
      const callId = s.id === id(7) ? 'call_sf1' : s.id === id(9) ? 'call_bf1' : 'call_se1';
      Object.assign(a, {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': s.tool.name,
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.call.arguments': JSON.stringify(s.tool.arguments),
        ...(s.tool.result !== undefined ? { 'gen_ai.tool.call.result': s.tool.result } : {}),
        ...mcpCall,
      });
    }
    if (s.kind === 'mcp-list') Object.assign(a, { 'mcp.method.name': 'tools/list', 'mcp.server.name': 'travel-mcp', 'mcp.transport': 'stdio', 'gen_ai.tool.definitions': JSON.stringify(s.listed!.map(flatDef)) });
    if (s.error) a['error.type'] = s.error.type;
  } else if (dialect === 'genai-legacy') {
    if (s.kind === 'mas') Object.assign(a, { 'traceloop.span.kind': 'workflow', 'traceloop.workflow.name': 'travel_planner', 'session.id': SESSION_ID });
    if (s.kind === 'agent') Object.assign(a, { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': s.agent });
    if (s.kind === 'llm' && s.llm) {
      const l = s.llm;
      Object.assign(a, {
        'llm.request.type': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.usage.prompt_tokens': l.usage.input,
        'gen_ai.usage.completion_tokens': l.usage.output,
        'gen_ai.usage.cache_read_input_tokens': l.usage.cacheRead,
        'llm.usage.total_tokens': l.usage.input + l.usage.output,
        ...indexed('gen_ai.prompt', l.input, '', ''),
        ...indexed('gen_ai.completion', [l.output], '', ''),
        'gen_ai.completion.0.finish_reason': l.finish,
      });
      l.tools.forEach((d, i) => {
        a[`llm.request.functions.${i}.name`] = d.name;
        a[`llm.request.functions.${i}.description`] = d.description;
        a[`llm.request.functions.${i}.parameters`] = JSON.stringify(d.parameters);
      });
    }
    if (s.kind === 'tool' && s.tool) {
      Object.assign(a, {
        'traceloop.span.kind': 'tool',
        'traceloop.entity.name': s.tool.name,
        'traceloop.entity.input': JSON.stringify(s.tool.arguments),
        ...(s.tool.result !== undefined ? { 'traceloop.entity.output': s.tool.result } : {}),
        ...mcpCall,
      });
    }
    if (s.kind === 'mcp-list') Object.assign(a, { 'mcp.method.name': 'tools/list', 'mcp.server.name': 'travel-mcp', 'network.transport': 'stdio', 'traceloop.entity.output': JSON.stringify({ tools: s.listed!.map((d) => ({ name: d.name, description: d.description, inputSchema: d.parameters })) }) });
  } else {
    if (s.kind === 'mas') Object.assign(a, { 'openinference.span.kind': 'CHAIN', 'session.id': SESSION_ID });
    if (s.kind === 'agent') Object.assign(a, { 'openinference.span.kind': 'AGENT', 'agent.name': s.agent });
    if (s.kind === 'llm' && s.llm) {
      const l = s.llm;
      Object.assign(a, {
        'openinference.span.kind': 'LLM',
        'llm.provider': 'openai',
        'llm.model_name': 'gpt-4o-mini-2024-07-18',
        'llm.invocation_parameters': JSON.stringify({ model: 'gpt-4o-mini', temperature: 0 }),
        'llm.token_count.prompt': l.usage.input,
        'llm.token_count.completion': l.usage.output,
        'llm.token_count.total': l.usage.input + l.usage.output,
        'llm.token_count.prompt_details.cache_read': l.usage.cacheRead,
        ...indexed('llm.input_messages', l.input, 'message.', 'tool_call.'),
        ...indexed('llm.output_messages', [l.output], 'message.', 'tool_call.'),
        'output.value': JSON.stringify({ choices: [{ index: 0, finish_reason: l.finish }] }),
        'output.mime_type': 'application/json',
      });
      l.tools.forEach((d, i) => (a[`llm.tools.${i}.tool.json_schema`] = JSON.stringify(openaiDef(d))));
    }
    if (s.kind === 'tool' && s.tool) {
      Object.assign(a, {
        'openinference.span.kind': 'TOOL',
        'tool.name': s.tool.name,
        'input.value': JSON.stringify(s.tool.arguments),
        ...(s.tool.result !== undefined ? { 'output.value': s.tool.result } : {}),
        ...mcpCall,
      });
    }
    if (s.kind === 'mcp-list') Object.assign(a, { 'mcp.method.name': 'tools/list', 'mcp.server.name': 'travel-mcp', 'mcp.transport': 'stdio', 'output.value': JSON.stringify({ tools: s.listed!.map((d) => ({ name: d.name, description: d.description, inputSchema: d.parameters })) }) });
  }
  return a;
}

function encodeSpan(s: NeutralSpan, dialect: Dialect): Record<string, unknown> {
  const span: Record<string, unknown> = {
    name: s.name,
    attributes: kv(attributes(s, dialect)),
  };
  if (dialect === 'openinference') {
    // Tolerance on purpose: base64 ids and Long-object timestamps, as protobuf-JSON writers produce them.
    Object.assign(span, { traceId: b64(TRACE_ID), spanId: b64(s.id), ...(s.parent ? { parentSpanId: b64(s.parent) } : {}), kind: 'SPAN_KIND_INTERNAL', startTimeUnixNano: long(s.start), endTimeUnixNano: long(s.end) });
  } else {
    Object.assign(span, { traceId: TRACE_ID, spanId: s.id, ...(s.parent ? { parentSpanId: s.parent } : {}), kind: dialect === 'genai' ? 'SPAN_KIND_INTERNAL' : 1, startTimeUnixNano: nanos(s.start), endTimeUnixNano: nanos(s.end) });
  }
  if (s.error) {
    span.status = dialect === 'genai-legacy' ? { code: 2, message: s.error.message } : { code: 'STATUS_CODE_ERROR', message: s.error.message };
    if (dialect !== 'genai') {
      span.events = [{ name: 'exception', timeUnixNano: nanos(s.end), attributes: kv({ 'exception.type': s.error.type, 'exception.message': s.error.message }) }];
    }
  } else if (dialect === 'genai') {
    span.status = {};
  }
  return span;
}

const request = (spans: Record<string, unknown>[], scope: string) => ({
  resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'travel-assistant' }) }, scopeSpans: [{ scope: { name: scope }, spans }] }],
});

/** The scenario as OTLP JSON Lines in one dialect. Spans are written in end order (children before parents). */
export function scenarioJsonl(dialect: Dialect): string {
  const byEnd = [...SPANS].sort((a, b) => a.end - b.end);
  const scope = dialect === 'genai' ? 'travel-assistant' : dialect === 'genai-legacy' ? 'opentelemetry.instrumentation.openai' : 'openinference.instrumentation';
  const encoded = byEnd.map((s) => encodeSpan(s, dialect));
  let lines: Record<string, unknown>[][];
  if (dialect === 'genai') lines = encoded.map((e) => [e]); // one span per line
  else if (dialect === 'genai-legacy') lines = [encoded.slice(0, 5), encoded.slice(5, 10), encoded.slice(10)];
  else lines = [encoded.slice(0, 7), encoded.slice(7)];
  return lines.map((spans) => JSON.stringify(request(spans, scope))).join('\n') + '\n';
}
