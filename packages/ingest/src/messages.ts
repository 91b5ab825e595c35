/**
 * Message normalisation: every dialect's way of writing chat messages → the ontology's `Message`
 * (role, text, tool calls made, tool result carried). Also tool definitions.
 */
import type { Message, MessageToolCall, ToolDefinition } from '@mce/core';

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON.parse when the string looks like JSON; the value itself otherwise (never throws). */
export function parseJsonMaybe(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  // Look at the first non-blank character without copying the (possibly large) string.
  let i = 0;
  while (i < v.length && v.charCodeAt(i) <= 32) i++;
  const c = v.charCodeAt(i);
  if (c !== 123 /* { */ && c !== 91 /* [ */ && c !== 34 /* " */) return v;
  // An object's first member starts with a quote: `{'a': 1}` (a Python dict, common in tool inputs) is no JSON, and
  // the thrown SyntaxError (a stack trace captured each time) cost more than the rest of the check.
  if (c === 123 && !opensJsonObject(v, i + 1)) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** Whether what follows a `{` at `from` can begin a JSON object's body: a member's quoted name, or the closing brace. */
function opensJsonObject(v: string, from: number): boolean {
  let i = from;
  while (i < v.length && v.charCodeAt(i) <= 32) i++;
  const c = v.charCodeAt(i);
  return c === 34 /* " */ || c === 125 /* } */;
}

/** Python-repr dicts (`{'a': 1, 'b': None}`) as some home-grown spans write them → JS value, or undefined. */
function parsePythonDict(v: string): unknown {
  const json = v.replace(/'/g, '"').replace(/\bNone\b/g, 'null').replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false');
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** A string holding JSON, else a Python repr dict → its value; the string itself when neither parses; others as is. */
export function parseJsonOrPython(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const json = parseJsonMaybe(v);
  return json !== v ? json : (parsePythonDict(v) ?? v);
}

/**
 * Text of a text part (`type` absent, `text`, `input_text` or `output_text`), undefined for other parts. OpenAI,
 * Anthropic, Vercel and MCP parts hold it in `text`, GenAI parts in `content`: the first of the two that is a string.
 */
function textOfPart(p: Obj): string | undefined {
  const type = p.type;
  if (type !== undefined && type !== 'text' && type !== 'input_text' && type !== 'output_text') return undefined;
  return typeof p.text === 'string' ? p.text : typeof p.content === 'string' ? p.content : undefined;
}

/** Text of a content value: strings (a JSON-encoded string literal is decoded), part lists, objects as JSON. */
function contentText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') {
    const s = content.trim();
    if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
      try {
        const d = JSON.parse(s) as unknown;
        if (typeof d === 'string') return d;
      } catch {
        /* keep as is */
      }
    }
    // A JSON-encoded list of content parts (`[{"type":"text",…},{"type":"image_url",…}]`, as OpenLLMetry writes a
    // multimodal prompt): its text parts, not the JSON with the images' base64 in it. Other JSON text stays text.
    if (s.length >= 2 && s.startsWith('[') && s.endsWith(']')) {
      try {
        const d = JSON.parse(s) as unknown;
        if (Array.isArray(d) && d.length > 0 && d.every((p) => isObj(p) && typeof p.type === 'string')) return contentText(d);
      } catch {
        /* keep as is */
      }
    }
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((p) => {
        if (typeof p === 'string') return p;
        return isObj(p) ? (textOfPart(p) ?? '') : '';
      })
      .filter((t) => t !== '')
      .join('\n');
  }
  if (typeof content === 'number' || typeof content === 'boolean') return String(content);
  return JSON.stringify(content);
}

function toolCallOf(v: unknown): MessageToolCall | undefined {
  if (!isObj(v)) return undefined;
  const fn = isObj(v.function) ? v.function : v;
  const name = fn.name ?? v.toolName ?? v.tool_name;
  if (typeof name !== 'string' || name === '') return undefined;
  const id = v.id ?? v.toolCallId ?? v.tool_call_id;
  const args = fn.arguments ?? v.args ?? v.input;
  return {
    ...(typeof id === 'string' && id !== '' ? { id } : {}),
    name,
    ...(args !== undefined ? { arguments: parseJsonMaybe(args) } : {}),
  };
}

/**
 * One chat message in any of: OpenAI (`content`, `tool_calls`, `tool_call_id`), GenAI semconv (`parts` with
 * `text` / `tool_call` / `tool_call_response`), Vercel AI SDK (`content` parts `tool-call` / `tool-result`).
 */
export function normaliseMessage(raw: unknown, defaultRole = 'user'): Message | undefined {
  if (typeof raw === 'string') return { role: defaultRole, content: raw };
  if (!isObj(raw)) return undefined;
  const role = typeof raw.role === 'string' && raw.role !== '' ? raw.role : defaultRole;
  const msg: Message = { role, content: '' };
  const texts: string[] = [];
  const toolCalls: MessageToolCall[] = [];
  let toolCallId = raw.tool_call_id ?? raw.toolCallId;
  const parts = Array.isArray(raw.parts) ? raw.parts : Array.isArray(raw.content) ? raw.content : undefined;
  if (parts) {
    for (const p of parts) {
      if (typeof p === 'string') {
        texts.push(p);
        continue;
      }
      if (!isObj(p)) continue;
      const type = p.type;
      if (type === 'tool_call' || type === 'tool-call' || type === 'function_call') {
        const tc = toolCallOf(p);
        if (tc) toolCalls.push(tc);
      } else if (type === 'tool_call_response' || type === 'tool-result' || type === 'function_call_output') {
        toolCallId ??= p.id ?? p.toolCallId ?? p.call_id;
        const r = p.response ?? p.result ?? p.output;
        texts.push(typeof r === 'string' ? r : contentText(r));
      } else {
        const t = textOfPart(p);
        if (t !== undefined) texts.push(t);
      }
    }
    msg.content = texts.join('\n');
  } else {
    msg.content = contentText(raw.content ?? raw.text ?? raw.message);
  }
  const rawCalls = raw.tool_calls ?? raw.toolCalls;
  if (Array.isArray(rawCalls)) for (const c of rawCalls) {
    const tc = toolCallOf(c);
    if (tc) toolCalls.push(tc);
  }
  if (isObj(raw.function_call)) {
    const tc = toolCallOf(raw.function_call);
    if (tc) toolCalls.push(tc);
  }
  if (toolCalls.length) msg.toolCalls = toolCalls;
  if (typeof raw.name === 'string' && raw.name !== '') msg.name = raw.name;
  if (typeof toolCallId === 'string' && toolCallId !== '') msg.toolCallId = toolCallId;
  return msg;
}

/** A message list given as a JSON string, an array, `{messages:[…]}`, or a single message object. */
export function normaliseMessageList(value: unknown, defaultRole = 'user'): Message[] | undefined {
  let v = parseJsonMaybe(value);
  if (v === undefined || v === null || v === '') return undefined;
  if (isObj(v) && Array.isArray(v.messages)) v = v.messages;
  const items = Array.isArray(v) ? v : [v];
  const out: Message[] = [];
  for (const item of items) {
    const m = normaliseMessage(item, defaultRole);
    if (m) out.push(m);
  }
  return out;
}

const probes = new Map<string, readonly [string, string]>();
/** The attribute keys probed for index 0, built once per prefix (fresh strings would be re-hashed on every span). */
function probeKeys(id: string, make: () => [string, string]): readonly [string, string] {
  let k = probes.get(id);
  if (!k) probes.set(id, (k = make()));
  return k;
}

/**
 * Flattened attributes `<head>N.<field>` grouped by index N, in index order; `inner` is dropped from the front of each
 * field (OpenInference's `message.`). Undefined when no key matches.
 */
function groupByIndex(attrs: Record<string, unknown>, head: string, inner = ''): Record<string, unknown>[] | undefined {
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const key in attrs) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf('.');
    if (dot <= 0) continue;
    const idx = Number(rest.slice(0, dot));
    if (!Number.isInteger(idx)) continue;
    let field = rest.slice(dot + 1);
    if (inner && field.startsWith(inner)) field = field.slice(inner.length);
    let fields = byIndex.get(idx);
    if (!fields) byIndex.set(idx, (fields = {}));
    fields[field] = attrs[key];
  }
  if (byIndex.size === 0) return undefined;
  return [...byIndex.keys()].sort((a, b) => a - b).map((idx) => byIndex.get(idx)!);
}

/**
 * Indexed flattened messages: `<prefix>.N.role`, `<prefix>.N.content`, `<prefix>.N.tool_calls.M.name` …
 * `inner` is inserted after the index (OpenInference writes `llm.input_messages.N.message.role`) and `callInner`
 * inside tool calls (`tool_calls.M.tool_call.function.name`).
 */
export function indexedMessages(
  attrs: Record<string, unknown>,
  prefix: string,
  inner = '',
  callInner = '',
): Message[] | undefined {
  const head = `${prefix}.`;
  // Fast exit without scanning every key (this runs for every LLM span): indexed messages start at 0 with a role.
  const [roleKey, contentKey] = probeKeys(`${prefix}|${inner}`, () => [`${head}0.${inner}role`, `${head}0.${inner}content`]);
  if (attrs[roleKey] === undefined && attrs[contentKey] === undefined) return undefined;
  const groups = groupByIndex(attrs, head, inner);
  if (!groups) return undefined;
  const out: Message[] = [];
  for (const f of groups) {
    const calls = new Map<number, Record<string, unknown>>();
    const contents: string[] = [];
    for (const [k, v] of Object.entries(f)) {
      // Most fields are neither (role, content): the patterns are tried only on keys that can match them.
      const m = k.startsWith('tool_calls.') ? /^tool_calls\.(\d+)\.(.+)$/.exec(k) : null;
      if (m) {
        let sub = m[2]!;
        if (callInner && sub.startsWith(callInner)) sub = sub.slice(callInner.length);
        sub = sub.replace(/^function\./, '');
        const n = Number(m[1]);
        let c = calls.get(n);
        if (!c) calls.set(n, (c = {}));
        c[sub] = v;
      }
      const cm = k.startsWith('contents.') ? /^contents\.(\d+)\.message_content\.text$/.exec(k) : null;
      if (cm && typeof v === 'string') contents.push(v);
    }
    const msg: Message = {
      role: typeof f.role === 'string' && f.role !== '' ? f.role : prefix.includes('completion') || prefix.includes('output') ? 'assistant' : 'user',
      content: f.content !== undefined ? contentText(f.content) : contents.join('\n'),
    };
    const toolCalls: MessageToolCall[] = [];
    for (const n of [...calls.keys()].sort((a, b) => a - b)) {
      const tc = toolCallOf(calls.get(n));
      if (tc) toolCalls.push(tc);
    }
    if (toolCalls.length) msg.toolCalls = toolCalls;
    if (typeof f.name === 'string' && f.name !== '') msg.name = f.name;
    const tcid = f.tool_call_id;
    if (typeof tcid === 'string' && tcid !== '') msg.toolCallId = tcid;
    out.push(msg);
  }
  return out;
}

/** One tool definition in OpenAI (`{type:'function', function:{…}}`), flat (`{name, parameters}`) or MCP form. */
function normaliseToolDefinition(raw: unknown): ToolDefinition | undefined {
  const v = parseJsonMaybe(raw);
  if (!isObj(v)) return undefined;
  const fn = isObj(v.function) ? v.function : v;
  const name = fn.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const schema = parseJsonMaybe(fn.parameters ?? fn.inputSchema ?? fn.input_schema ?? fn.json_schema);
  return {
    name,
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    ...(isObj(schema) ? { inputSchema: schema } : {}),
  };
}

export function normaliseToolDefinitions(value: unknown): ToolDefinition[] | undefined {
  const v = parseJsonMaybe(value);
  if (v === undefined || v === null || v === '') return undefined;
  const items = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.tools) ? v.tools : [v];
  const out: ToolDefinition[] = [];
  for (const item of items) {
    const d = normaliseToolDefinition(item);
    if (d) out.push(d);
  }
  return out;
}

/** Indexed definitions: `llm.request.functions.N.name/description/parameters`, `llm.tools.N.tool.json_schema`. */
export function indexedToolDefinitions(attrs: Record<string, unknown>, prefix: string): ToolDefinition[] | undefined {
  const head = `${prefix}.`;
  const [nameKey, schemaKey] = probeKeys(prefix, () => [`${head}0.name`, `${head}0.tool.json_schema`]);
  if (attrs[nameKey] === undefined && attrs[schemaKey] === undefined) return undefined;
  const groups = groupByIndex(attrs, head);
  if (!groups) return undefined;
  const out: ToolDefinition[] = [];
  for (const f of groups) {
    const d = f['tool.json_schema'] !== undefined ? normaliseToolDefinition(f['tool.json_schema']) : normaliseToolDefinition(f);
    if (d) out.push(d);
  }
  return out;
}
