/**
 * Spans of one session → an ontology Session.
 *
 * - Kinds come from the dialect tables (`dialects/`). A workflow/graph span nested inside an agent or another
 *   workflow is an inner chain (LlamaIndex `*.workflow` under an agent), so it becomes a TaskCall; only top-level
 *   ones are MAS calls. Spans of no known kind (HTTP, events, framework plumbing) are not elements but still link
 *   the tree: an element's `parentId` is its nearest ancestor that is an element.
 * - A tool span directly inside a tool span of the same name (MCP client + server spans, `execute_tool` around
 *   `tools/call`) is one call: the outer one is kept and takes the inner one's MCP details. Likewise an LLM span
 *   directly inside an LLM span (a framework span around the provider client's span): one call, tokens once
 *   (nested.ts; the store folds such spans of two parts of a session by the same rules).
 * - `agentCallId`: the nearest ancestor agent call, else the rule in `attribution.ts`.
 * - `masCallId`: the nearest ancestor MAS call, else the MAS call whose window holds the element's start. A session
 *   without any workflow span gets one implicit MAS call per trace that holds an agent, LLM or tool call (its id is
 *   the trace id, which cannot collide with 16-digit span ids).
 * - A call without an ancestor call among these spans whose chain of parent spans names a span that is not among them
 *   (another part of the session, or never exported) keeps that span's id in its attributes (`MISSING_PARENT_KEY`,
 *   links.ts), as does an implicit MAS call whose first parentless span names one: the store links the parts with it.
 * - Errors: span status ERROR, `exception` events, `error.type` — never the words of the output text.
 */
import { hasControlCharacter, NO_CONTROL_CHARACTER, quoteControlCharacters } from '@mce/core';
import type {
  AgentCall,
  ElementError,
  LLMCall,
  MASCall,
  MCPCallInfo,
  MCPServer,
  Session,
  Status,
  TaskCall,
  ToolCall,
  ToolDefinition,
  TokenUsage,
} from '@mce/core';
import { AgentMatcher, checkpointNamespace, type AgentCandidate } from './attribution.js';
import { finalAssistantResponse, firstUserInput } from './conversation.js';
import {
  classify,
  field,
  fieldAttribute,
  inputMessages,
  outputMessages,
  stringField,
  stripKindSuffix,
  toolDefinitions,
  claudeMcpTool,
  type Classification,
} from './dialects/index.js';
import { errorMessage, type IngestWarning, type WarningSink } from './errors.js';
import type { DocumentPositions } from './json-position.js';
import { groupBy, MasWindows, MISSING_PARENT_KEY, nearestAncestor } from './links.js';
import { isObj, normaliseToolDefinitions, parseJsonMaybe } from './messages.js';
import { requestModelOf, responseModelOf } from './model-name.js';
import { foldDuplicateToolRuns } from './duplicate-tools.js';
import { nameMcpServers, unknownServerMessage } from './mcp-server-names.js';
import { foldInnerLlm } from './nested.js';
import { spanPath, type SpanRecord } from './span.js';
import { decodeInt } from './values.js';
import { stableJson } from '@mce/core';

interface Node {
  span: SpanRecord;
  cls: Classification;
  /** Whether the span became a call of the session (not plumbing, not merged into an outer span). */
  element?: boolean;
  parent?: Node;
}

export interface NormaliseOptions {
  warnings: WarningSink;
  file?: string;
  /**
   * The read's warnings waiting for places in its files that are one JSON document: a warning about a span read from
   * such a file waits there for the span's line and column. Without it, such a warning names the file only.
   */
  positions?: DocumentPositions;
}

function num(v: unknown): number | undefined {
  const n = decodeInt(v);
  // Counts outside the safe-integer range are corrupt values, not token counts.
  return n !== undefined && n >= 0 && n <= Number.MAX_SAFE_INTEGER ? Math.round(n) : undefined;
}

/** Token counts of an LLM span; a count that is there but is no count ("12abc", -3, 1e30) is said, and left out. */
function usageOf(span: SpanRecord, warn: (message: string) => void): TokenUsage {
  const count = (name: Exclude<keyof TokenUsage, 'reported'>): number | undefined => {
    const raw = field(span, name);
    const n = num(raw);
    if (raw !== undefined && raw !== null && raw !== '' && n === undefined) {
      warn(`span ${span.spanId} (${span.name}): ${name} ${JSON.stringify(raw)} is not a token count; left out`);
    }
    return n;
  };
  const inputCount = count('inputTokens');
  const outputCount = count('outputTokens');
  const totalCount = count('totalTokens');
  const input = inputCount ?? 0;
  const output = outputCount ?? 0;
  const usage: TokenUsage = {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: count('cacheReadTokens') ?? 0,
    cacheWriteTokens: count('cacheWriteTokens') ?? 0,
    reasoningTokens: count('reasoningTokens') ?? 0,
    totalTokens: totalCount ?? Math.min(input + output, Number.MAX_SAFE_INTEGER),
  };
  // No count at all is "usage not reported", not "0 tokens": the metrics skip such a call instead of summing a 0.
  if (inputCount === undefined && outputCount === undefined && totalCount === undefined) usage.reported = false;
  return usage;
}

function finishReasonsOf(span: SpanRecord): string[] {
  const v = parseJsonMaybe(field(span, 'finishReasons'));
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' && v !== '' ? [v] : [];
}

/** Status and error from span status, `exception` events and `error.type`. */
function statusOf(span: SpanRecord): { status: Status; error?: ElementError } {
  const exc = span.events.find((e) => e.name === 'exception');
  const errorType = stringField(span, 'errorType');
  if (span.status.code !== 'error' && !exc && !errorType) return { status: span.status.code };
  const type = errorType ?? (typeof exc?.attributes['exception.type'] === 'string' ? (exc.attributes['exception.type'] as string) : undefined);
  const message =
    span.status.message ?? (typeof exc?.attributes['exception.message'] === 'string' ? (exc.attributes['exception.message'] as string) : undefined);
  return { status: 'error', error: { ...(type ? { type } : {}), ...(message ? { message } : {}) } };
}

const ifDefined = <K extends string, V>(key: K, v: V | undefined): Partial<Record<K, V>> =>
  (v === undefined ? {} : { [key]: v }) as Partial<Record<K, V>>;

function baseOf(node: Node) {
  const s = node.span;
  const { status, error } = statusOf(s);
  return {
    id: s.spanId,
    traceId: s.traceId,
    name: s.name,
    startTime: s.startTime,
    endTime: s.endTime,
    status,
    ...ifDefined('error', error),
    attributes: s.attributes,
  };
}

// Loops, not Math.min(...list): a session may hold more spans than a call may have arguments.
function minOf<T>(list: readonly T[], f: (x: T) => number): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of list) m = Math.min(m, f(x));
  return m;
}
function maxOf<T>(list: readonly T[], f: (x: T) => number): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of list) m = Math.max(m, f(x));
  return m;
}

const byStart = (a: { startTime: number }, b: { startTime: number }) => a.startTime - b.startTime;

/** A tool call (with an id) that an LLM call's output asked for. */
interface ToolRequest {
  start: number;
  id: string;
  /** The requested arguments as canonical JSON: a tool span with the same arguments answered this request. */
  args: string;
}

/**
 * Per tool name, the requests of these LLM calls in start order; requests of calls that started together keep list
 * order (the calls' start order, then message order). Calls without a start time can never be "earlier".
 */
function toolRequests(calls: readonly LLMCall[]): Map<string, ToolRequest[]> {
  const byName = new Map<string, ToolRequest[]>();
  for (const c of calls) {
    if (Number.isNaN(c.startTime)) continue;
    for (const m of c.outputMessages) {
      for (const tc of m.toolCalls ?? []) {
        if (!tc.id) continue;
        const request = { start: c.startTime, id: tc.id, args: stableJson(tc.arguments ?? null) };
        const l = byName.get(tc.name);
        if (l) l.push(request);
        else byName.set(tc.name, [request]);
      }
    }
  }
  for (const l of byName.values()) l.sort((a, b) => a.start - b.start);
  return byName;
}

/**
 * The first unused request met walking the calls that started at or before `t` from the latest back; requests of
 * calls that started together are taken in list order (as a stable latest-first sort of the calls gives them).
 */
function latestUnused(requests: readonly ToolRequest[], t: number, used: ReadonlySet<string>, args?: string): ToolRequest | undefined {
  // Binary search: `end` becomes the index of the first request that started after t.
  let lo = 0;
  let end = requests.length;
  while (lo < end) {
    const mid = (lo + end) >>> 1;
    if (requests[mid]!.start <= t) lo = mid + 1;
    else end = mid;
  }
  // Parallel calls of one tool can start in any order: the unused request with these very arguments, latest first,
  // before the positional rule below.
  if (args !== undefined) {
    for (let i = end - 1; i >= 0; i--) if (requests[i]!.args === args && !used.has(requests[i]!.id)) return requests[i];
  }
  while (end > 0) {
    const start = requests[end - 1]!.start;
    let begin = end - 1;
    while (begin > 0 && requests[begin - 1]!.start === start) begin--;
    for (let i = begin; i < end; i++) if (!used.has(requests[i]!.id)) return requests[i];
    end = begin;
  }
  return undefined;
}

/** Assign only defined values, so exported sessions never carry `key: undefined`. */
function set<T extends object>(o: T, key: string, v: unknown): void {
  if (v !== undefined) (o as Record<string, unknown>)[key] = v;
}

const isElement = (n: Node) => !!n.element;

function nearest(node: Node, pred: (n: Node) => boolean): Node | undefined {
  for (let p = node.parent; p; p = p.parent) if (pred(p)) return p;
  return undefined;
}

/** `nearestAncestor` over the span tree: the nearest node above `node` that `pred` holds for. */
function nearestOnce(pred: (n: Node) => boolean): (node: Node) => Node | undefined {
  return nearestAncestor((n: Node) => n.parent, pred);
}

/** Tool name from the dialects, else the span name without its kind marker. */
function toolNameOf(span: SpanRecord, cls: Classification): string {
  if (cls.mcpMethod === 'resources/read') {
    const uri = stringField(span, 'mcpResourceUri');
    if (uri) return uri;
  }
  if (cls.mcpMethod === 'prompts/get') {
    const p = stringField(span, 'mcpPromptName');
    if (p) return p;
  }
  const named = stringField(span, 'toolName');
  const n = named ?? (stripKindSuffix(span.name.replace(/^(execute_tool|tools\/call|resources\/read|prompts\/get)\s+/, '')) || span.name || 'tool');
  // An MCP tool as Claude Agent SDK names it (`mcp__server__tool`) is the server's tool `tool`.
  return (cls.mcpMethod ? claudeMcpTool(n)?.tool : undefined) ?? n;
}

/** The MCP server a span names, and where it read the name (for a warning about it). */
function mcpServerOf(span: SpanRecord): { name: string; source: string | undefined } | undefined {
  const s = stringField(span, 'mcpServer');
  if (s) {
    const attribute = fieldAttribute(span, 'mcpServer');
    return { name: s, source: attribute === undefined ? undefined : `attribute ${attribute}` };
  }
  // On the server side of an MCP request the service itself is the server.
  const service = span.resource['service.name'];
  return span.kind === 'server' && typeof service === 'string' ? { name: service, source: 'resource attribute service.name' } : undefined;
}

/** Tools, resources and prompts a listing span (`tools/list` …) reports (its output JSON, or GenAI tool definitions on it). */
function listedInventory(span: SpanRecord): Partial<Pick<MCPServer, 'tools' | 'resources' | 'prompts'>> {
  const out = parseJsonMaybe(field(span, 'output'));
  const result = isObj(out) && isObj(out.result) ? out.result : out;
  const inv: Partial<Pick<MCPServer, 'tools' | 'resources' | 'prompts'>> = {};
  const tools = normaliseToolDefinitions(span.attributes['gen_ai.tool.definitions']) ?? (isObj(result) && Array.isArray(result.tools) ? normaliseToolDefinitions(result.tools) : undefined);
  if (tools?.length) inv.tools = tools;
  if (isObj(result) && Array.isArray(result.resources)) {
    inv.resources = result.resources.filter(isObj).filter((r) => typeof r.uri === 'string').map((r) => ({
      uri: r.uri as string,
      ...ifDefined('name', typeof r.name === 'string' ? r.name : undefined),
      ...ifDefined('description', typeof r.description === 'string' ? r.description : undefined),
      ...ifDefined('mimeType', typeof r.mimeType === 'string' ? r.mimeType : undefined),
    }));
  }
  if (isObj(result) && Array.isArray(result.prompts)) {
    inv.prompts = result.prompts.filter(isObj).filter((p) => typeof p.name === 'string').map((p) => ({
      name: p.name as string,
      ...ifDefined('description', typeof p.description === 'string' ? p.description : undefined),
      ...ifDefined(
        'arguments',
        Array.isArray(p.arguments)
          ? p.arguments.filter(isObj).filter((a) => typeof a.name === 'string').map((a) => ({
              name: a.name as string,
              ...ifDefined('description', typeof a.description === 'string' ? a.description : undefined),
              ...ifDefined('required', typeof a.required === 'boolean' ? a.required : undefined),
            }))
          : undefined,
      ),
    }));
  }
  return inv;
}

class Inventory {
  private servers = new Map<string, MCPServer>();
  server(name: string): MCPServer {
    let s = this.servers.get(name);
    if (!s) this.servers.set(name, (s = { name, tools: [], resources: [], prompts: [] }));
    return s;
  }
  addTool(server: string, tool: ToolDefinition) {
    const s = this.server(server);
    const existing = s.tools.find((t) => t.name === tool.name);
    if (!existing) s.tools.push({ ...tool });
    else {
      if (existing.description === undefined && tool.description !== undefined) existing.description = tool.description;
      if (existing.inputSchema === undefined && tool.inputSchema !== undefined) existing.inputSchema = tool.inputSchema;
    }
  }
  list(): MCPServer[] {
    return [...this.servers.values()];
  }
}

/** OpenInference's span for a whole openai-agents trace: a root AGENT span (named after the trace, `Agent workflow`). */
const isTraceAgent = (n: Node): boolean => !n.parent && n.cls.kind === 'agent' && n.span.attributes['openinference.span.kind'] === 'AGENT';

/** The names an agent span goes by besides its agent name: the raw ids that other spans' attributes name it with. */
function aliasesOf(span: SpanRecord): string[] {
  return ['agent_id', 'ioa_observe.entity.name'].map((k) => span.attributes[k]).filter((v): v is string => typeof v === 'string');
}

/**
 * Microsoft Agent Framework workflows run each agent inside an executor span, and record the agent's LLM and tool
 * spans as siblings of its `invoke_agent` span, not as its children: a call without an agent ancestor belongs to the
 * agent span that is a child of one of its ancestors (the nearest such ancestor) and whose window holds the call's start.
 */
class SiblingAgents {
  private byParent = new Map<Node, Node[]>();
  constructor(agents: readonly Node[]) {
    for (const a of agents) {
      if (!a.parent) continue;
      const l = this.byParent.get(a.parent);
      if (l) l.push(a);
      else this.byParent.set(a.parent, [a]);
    }
  }
  of(n: Node): Node | undefined {
    if (this.byParent.size === 0) return undefined;
    const t = n.span.startTime;
    for (let p = n.parent; p; p = p.parent) {
      const agents = this.byParent.get(p);
      if (!agents) continue;
      let best: Node | undefined;
      for (const a of agents) if (a !== n && a.span.startTime <= t && t <= a.span.endTime && (!best || a.span.startTime > best.span.startTime)) best = a;
      return best;
    }
    return undefined;
  }
}

export function normaliseSession(sessionId: string, spans: readonly SpanRecord[], opts: NormaliseOptions): Session {
  const { warnings } = opts;
  /**
   * Adds a warning about `span`, naming where it was read: its own file (a session read from several files has spans
   * of each), its line in JSON Lines; in a file that is one document, its line and column, found once the read is over.
   */
  const warnAbout = (span: SpanRecord, warning: IngestWarning): void => {
    const file = span.file ?? opts.file;
    const named = { ...warning, ...ifDefined('file', file), ...ifDefined('line', span.line) };
    if (span.line !== undefined || file === undefined || opts.positions === undefined) warnings.add(named);
    else opts.positions.of(file).warn(warnings, named, () => {
      const path = spanPath(span);
      return path === undefined ? undefined : { path };
    });
  };
  const badCount = (span: SpanRecord) => (message: string) => warnAbout(span, { code: 'malformed-span', message, sessionId });
  // 1. Nodes, deduplicated by span id, in start order.
  const byId = new Map<string, Node>();
  const ordered = [...spans].sort((a, b) => a.startTime - b.startTime || a.endTime - b.endTime);
  for (const span of ordered) {
    if (byId.has(span.spanId)) {
      // Named where the copy dropped is.
      warnAbout(span, { code: 'duplicate-span', message: `span ${span.spanId} (${span.name}) appears twice; the first copy is kept`, span: span.spanId, sessionId });
      continue;
    }
    let cls: Classification;
    try {
      cls = classify(span);
    } catch (err) {
      warnAbout(span, { code: 'malformed-span', message: `skipped span ${span.spanId} (${span.name}): ${errorMessage(err)}`, span: span.spanId, sessionId });
      continue;
    }
    byId.set(span.spanId, { span, cls });
  }
  const nodes = [...byId.values()];
  const orphans: string[] = [];
  let firstOrphan: SpanRecord | undefined;
  for (const n of nodes) {
    const p = n.span.parentSpanId ? byId.get(n.span.parentSpanId) : undefined;
    if (n.span.parentSpanId && !p) {
      orphans.push(`${n.span.spanId} → ${n.span.parentSpanId}`);
      firstOrphan ??= n.span;
    }
    if (p && p !== n) n.parent = p;
  }
  // A parent cycle in a broken file is cut where its walk closes. Each chain is walked once (a check per span that
  // climbed all its ancestors took minutes on a 200,000-span chain).
  const walked = new Map<Node, 'on-path' | 'done'>();
  for (const n of nodes) {
    if (walked.has(n)) continue;
    const path: Node[] = [];
    let q: Node | undefined = n;
    while (q && !walked.has(q)) {
      walked.set(q, 'on-path');
      path.push(q);
      q = q.parent;
    }
    if (q && walked.get(q) === 'on-path') (path[path.length - 1] as Node).parent = undefined;
    for (const x of path) walked.set(x, 'done');
  }
  if (firstOrphan !== undefined) {
    // Once per session: a parent outside the spans at hand (another file, a part of the session streamed earlier,
    // a span that was never exported) cannot link these calls to the agent or MAS call above them here. The calls keep
    // its id (MISSING_PARENT_KEY), so the store can, if it is a call of the session there. Named where the first span
    // listed is.
    const shown = orphans.slice(0, 5).join(', ') + (orphans.length > 5 ? `, … (${orphans.length - 5} more)` : '');
    warnAbout(firstOrphan, {
      code: 'unknown-parent',
      message: `${orphans.length} span(s) of session ${sessionId} name a parent span that is not among its spans (span → missing parent: ${shown}): they are roots here, linked through that parent only once the store holds it as a call (another part of the session)`,
      sessionId,
    });
  }

  const agentName = (n: Node) =>
    stringField(n.span, 'agentName') ?? (stripKindSuffix(n.span.name.replace(/^invoke_agent\s+/, '')) || 'agent');
  /** The name a span's run goes by: the agent's, the task's or the workflow's (`LangGraph.workflow` → LangGraph). */
  const runName = (n: Node) =>
    n.cls.kind === 'agent' ? agentName(n) : (stringField(n.span, n.cls.kind === 'mas' ? 'workflowName' : 'taskName') ?? stripKindSuffix(n.span.name));

  // 2. Final kinds: nested workflows are tasks; tool-in-same-tool and LLM-in-LLM spans merge into the outer one.
  for (const n of nodes) {
    if (n.cls.kind === 'mas' && nearest(n, (p) => p.cls.kind === 'agent' || p.cls.kind === 'mas')) n.cls = { kind: 'task' };
  }
  // A root chain that runs agents is the MAS invocation (OpenInference has no workflow kind: its graph or crew run
  // is a top-level CHAIN span).
  const hasAgentBelow = new Set<Node>();
  // A node already marked has its ancestors marked too: each chain is climbed once.
  for (const n of nodes) if (n.cls.kind === 'agent') for (let p = n.parent; p && !hasAgentBelow.has(p); p = p.parent) hasAgentBelow.add(p);
  for (const n of nodes) if (n.cls.kind === 'task' && !n.parent && hasAgentBelow.has(n)) n.cls = { kind: 'mas' };
  // OpenInference's openai-agents instrumentation makes the trace itself (`Agent workflow`, the trace's name) a root
  // AGENT span around the agents: the run of the system, not an agent.
  for (const n of nodes) if (isTraceAgent(n) && hasAgentBelow.has(n)) n.cls = { kind: 'mas' };
  // The same run seen by two instrumentations (OpenLLMetry's `invoke_agent LangGraph` around `LangGraph.workflow`, an
  // agent span inside an agent span of its own name) is one agent call: the inner span is plumbing.
  for (const n of nodes) {
    if (n.cls.kind !== 'agent' && n.cls.kind !== 'task' && n.cls.kind !== 'mas') continue;
    const outer = nearest(n, (p) => p.cls.kind !== 'other');
    if (outer?.cls.kind === 'agent' && runName(n) === agentName(outer)) n.cls = { kind: 'other' };
  }
  const mergedInto = new Map<Node, Node>();
  for (const n of nodes) {
    if (n.cls.kind !== 'tool' && n.cls.kind !== 'llm') continue;
    const outer = nearest(n, (p) => p.cls.kind !== 'other');
    if (!outer || outer.cls.kind !== n.cls.kind) continue;
    // The same model call seen by two instrumentations (LangChain's `ChatOpenAI.chat` around the OpenAI client's
    // `openai.chat`) is one call, not two: its tokens must not count twice.
    if (n.cls.kind === 'llm' || toolNameOf(outer.span, outer.cls) === toolNameOf(n.span, n.cls)) mergedInto.set(n, mergedInto.get(outer) ?? outer);
  }
  // Spans that start together come shortest first, so an inner span may have been merged into a middle one before the
  // middle one was merged outward: every chain ends at the outermost span (the call), or the inner data is lost.
  for (const [inner, outer] of mergedInto) {
    let target = outer;
    while (mergedInto.has(target)) target = mergedInto.get(target) as Node;
    if (target !== outer) mergedInto.set(inner, target);
  }
  for (const n of nodes) n.element = ['mas', 'agent', 'task', 'llm', 'tool'].includes(n.cls.kind) && !mergedInto.has(n);

  // 3. Agent candidates for the attribution fallback.
  const agentNodes = nodes.filter((n) => n.element && n.cls.kind === 'agent');
  const matcher = new AgentMatcher(
    agentNodes.map((n): AgentCandidate => ({
      id: n.span.spanId,
      name: agentName(n),
      aliases: aliasesOf(n.span),
      ...ifDefined('namespace', checkpointNamespace(n.span)),
      start: n.span.startTime,
      end: n.span.endTime,
    })),
  );
  // Classes and elements are final from here on: the nearest agent, MAS call and element are remembered per node.
  const nearestAgent = nearestOnce((p) => !!p.element && p.cls.kind === 'agent');
  const nearestMas = nearestOnce((p) => !!p.element && p.cls.kind === 'mas');
  const nearestElement = nearestOnce(isElement);
  const rootOf = nearestOnce((p) => !p.parent);
  /** The parent span id where the chain of `n` (its own root here) leaves these spans, when it does. */
  const missingParent = (n: Node): string | undefined => {
    const top = rootOf(n) ?? n;
    const id = top.span.parentSpanId;
    return id && !byId.has(id) ? id : undefined;
  };
  /**
   * The span's attributes, with the missing parent of a call that has no ancestor call here (see links.ts). The key is
   * reserved: a span's own attribute of that name is dropped, or the store would take it for a missing parent.
   */
  const attributesOf = (n: Node, parentId: string | undefined): Record<string, unknown> => {
    const missing = parentId === undefined ? missingParent(n) : undefined;
    if (missing !== undefined) return { ...n.span.attributes, [MISSING_PARENT_KEY]: missing };
    if (!(MISSING_PARENT_KEY in n.span.attributes)) return n.span.attributes;
    const { [MISSING_PARENT_KEY]: _reserved, ...own } = n.span.attributes;
    return own;
  };
  const siblings = new SiblingAgents(agentNodes);
  const agentOf = (n: Node): string | undefined => {
    const a = nearestAgent(n);
    if (a) return a.span.spanId;
    if (n.cls.kind === 'agent' || n.cls.kind === 'mas') return undefined;
    return matcher.match(n.span) ?? siblings.of(n)?.span.spanId;
  };

  // 4. MAS calls, explicit or implicit.
  const masNodes = nodes.filter((n) => n.element && n.cls.kind === 'mas');
  const masCalls: MASCall[] = masNodes.map((n) => ({
    kind: 'MASCall',
    ...baseOf(n),
    // `invoke_workflow research` (GenAI's span name) is the workflow `research`, as `invoke_agent X` is the agent X.
    ...ifDefined('workflowName', stringField(n.span, 'workflowName') ?? (stripKindSuffix(n.span.name.replace(/^invoke_workflow\s+/, '')) || undefined)),
    ...ifDefined('input', field(n.span, 'input')),
    ...ifDefined('output', field(n.span, 'output')),
  }));
  if (masCalls.length === 0) {
    const traces = new Map<string, Node[]>();
    for (const n of nodes) {
      let l = traces.get(n.span.traceId);
      if (!l) traces.set(n.span.traceId, (l = []));
      l.push(n);
    }
    for (const [traceId, list] of traces) {
      if (!list.some((n) => n.element && (n.cls.kind === 'agent' || n.cls.kind === 'llm' || n.cls.kind === 'tool'))) continue;
      const root = list.find((n) => !n.parent) ?? list[0]!;
      // A root that names a parent span not among these spans is only this part's first span of the trace: said, so
      // that a part holding the trace's real root is preferred when the store joins the parts.
      const missing = missingParent(root);
      masCalls.push({
        kind: 'MASCall',
        id: traceId,
        traceId,
        name: root.span.name,
        startTime: minOf(list, (n) => n.span.startTime),
        endTime: maxOf(list, (n) => n.span.endTime),
        // The run's outcome is its root span's (ok, error or unset), as an explicit MAS call's is its own: a tool error
        // the agent handled does not make the run an error.
        status: statusOf(root.span).status,
        ...ifDefined('workflowName', stringField(root.span, 'workflowName')),
        ...ifDefined('attributes', missing === undefined ? undefined : { [MISSING_PARENT_KEY]: missing }),
      });
    }
  }
  // MAS calls by trace: an element's own trace is looked at first, so a session of many traces (one MAS call each)
  // does not match every element against every MAS call.
  const windows = new MasWindows(masCalls);
  const masOf = (n: Node): string | undefined => {
    if (n.cls.kind === 'mas') return undefined;
    const m = nearestMas(n);
    if (m) return m.span.spanId;
    return windows.of(n.span.traceId, n.span.startTime);
  };

  // 5. Elements.
  const agentCalls: AgentCall[] = [];
  const taskCalls: TaskCall[] = [];
  const llmCalls: LLMCall[] = [];
  const toolCalls: ToolCall[] = [];
  const inventory = new Inventory();
  // Elements are built by assignment rather than object spreads: this loop runs once per span.
  const withBase = <T extends object>(n: Node, kind: string): T => {
    const sp = n.span;
    const o: Record<string, unknown> = { kind, id: sp.spanId, traceId: sp.traceId, name: sp.name, startTime: sp.startTime, endTime: sp.endTime };
    const st = statusOf(sp);
    o.status = st.status;
    set(o, 'error', st.error);
    const parentId = nearestElement(n)?.span.spanId;
    set(o, 'parentId', parentId);
    set(o, 'masCallId', masOf(n));
    set(o, 'agentCallId', agentOf(n));
    o.attributes = attributesOf(n, parentId);
    return o as T;
  };
  const innerOf = new Map<Node, Node[]>();
  for (const [inner, outer] of mergedInto) {
    const l = innerOf.get(outer);
    if (l) l.push(inner);
    else innerOf.set(outer, [inner]);
  }
  const masById = new Map(masCalls.map((m) => [m.id, m]));
  // An MCP server name is a key of the stores, as in the session format: one with a control character is left out of
  // the inventory (and of the calls to it), said once per name.
  const refusedServers = new Set<string>();
  const refusedServerCalls = new Set<string>();
  const serverName = (span: SpanRecord): string | undefined => {
    const server = mcpServerOf(span);
    if (server === undefined || !hasControlCharacter(server.name)) return server?.name;
    if (!refusedServers.has(server.name)) {
      refusedServers.add(server.name);
      warnAbout(span, {
        code: 'malformed-span',
        message: `span ${span.spanId}: MCP server name ${quoteControlCharacters(server.name)}${server.source ? ` (${server.source})` : ''} ${NO_CONTROL_CHARACTER}; left out of the inventory`,
        span: span.spanId,
        sessionId,
      });
    }
    return undefined;
  };
  for (const n of nodes) {
    const s = n.span;
    try {
      if (n.cls.kind === 'mcp') {
        const server = serverName(s);
        if (server && /\/list$/.test(n.cls.mcpMethod ?? '')) {
          const inv = listedInventory(s);
          const srv = inventory.server(server);
          const transport = stringField(s, 'mcpTransport');
          if (transport && !srv.transport) srv.transport = transport;
          for (const t of inv.tools ?? []) inventory.addTool(server, t);
          for (const r of inv.resources ?? []) if (!srv.resources.some((x) => x.uri === r.uri)) srv.resources.push(r);
          for (const p of inv.prompts ?? []) if (!srv.prompts.some((x) => x.name === p.name)) srv.prompts.push(p);
        }
        continue;
      }
      if (!n.element) continue;
      switch (n.cls.kind) {
        case 'mas': {
          const m = masById.get(s.spanId);
          if (m) {
            const parentId = nearestElement(n)?.span.spanId;
            set(m, 'parentId', parentId);
            set(m, 'agentCallId', agentOf(n));
            m.attributes = attributesOf(n, parentId);
          }
          break;
        }
        case 'agent': {
          const a = withBase<AgentCall>(n, 'AgentCall');
          a.agentName = agentName(n);
          set(a, 'agentId', stringField(s, 'agentId'));
          set(a, 'input', field(s, 'input'));
          set(a, 'output', field(s, 'output'));
          agentCalls.push(a);
          break;
        }
        case 'task': {
          const t = withBase<TaskCall>(n, 'TaskCall');
          t.taskName = stringField(s, 'taskName') ?? stripKindSuffix(s.name);
          set(t, 'input', field(s, 'input'));
          set(t, 'output', field(s, 'output'));
          taskCalls.push(t);
          break;
        }
        case 'llm': {
          const c = withBase<LLMCall>(n, 'LLMCall');
          c.operation = n.cls.operation ?? 'chat';
          set(c, 'requestModel', requestModelOf(s));
          set(c, 'responseModel', responseModelOf(s));
          set(c, 'provider', stringField(s, 'provider'));
          c.usage = usageOf(s, badCount(s));
          c.inputMessages = inputMessages(s);
          c.outputMessages = outputMessages(s);
          c.finishReasons = finishReasonsOf(s);
          c.toolDefinitions = toolDefinitions(s);
          // Nested spans of the same call fill what the outer span did not record (nested.ts: the store folds the
          // calls of two parts by the same rule).
          for (const inner of innerOf.get(n) ?? []) {
            const is = inner.span;
            foldInnerLlm(c, {
              requestModel: requestModelOf(is),
              responseModel: responseModelOf(is),
              provider: stringField(is, 'provider'),
              usage: usageOf(is, badCount(is)),
              inputMessages: () => inputMessages(is),
              outputMessages: () => outputMessages(is),
              finishReasons: () => finishReasonsOf(is),
              toolDefinitions: () => toolDefinitions(is),
              ...statusOf(is),
            });
          }
          llmCalls.push(c);
          break;
        }
        case 'tool': {
          const inner = innerOf.get(n) ?? [];
          const all = inner.length ? [n, ...inner] : [n];
          const cls = all.find((x) => x.cls.mcpMethod)?.cls ?? n.cls;
          const pick = (f: Parameters<typeof field>[1]) => {
            for (const x of all) {
              const v = field(x.span, f);
              if (v !== undefined) return v;
            }
            return undefined;
          };
          const t = withBase<ToolCall>(n, 'ToolCall');
          // An error on the inner (server-side) span is the call's error too.
          const st = inner.map((x) => statusOf(x.span)).find((x) => x.status === 'error');
          if (st && t.status !== 'error') {
            t.status = 'error';
            set(t, 'error', st.error);
          }
          t.toolName = toolNameOf(s, cls);
          const toolCallId = pick('toolCallId');
          set(t, 'toolCallId', toolCallId === undefined ? undefined : String(toolCallId));
          const args = pick('toolArguments') ?? field(s, 'input');
          const result = pick('toolResult') ?? field(s, 'output');
          set(t, 'arguments', args === undefined ? undefined : parseJsonMaybe(args));
          set(t, 'result', result === undefined ? undefined : parseJsonMaybe(result));
          // The tool's own description: its definition when no model was offered one (step 6).
          const description = pick('toolDescription');
          if (typeof description === 'string') t.definition = { name: t.toolName, description };
          if (cls.mcpMethod) {
            const mcpInfo: MCPCallInfo = {
              kind: cls.mcpMethod === 'resources/read' ? 'resource' : cls.mcpMethod === 'prompts/get' ? 'prompt' : 'tool',
              method: cls.mcpMethod,
            };
            set(mcpInfo, 'server', all.map((x) => serverName(x.span)).find((v) => v !== undefined));
            // A server name refused above (a control character) was said already: not looked for elsewhere.
            if (mcpInfo.server === undefined && all.some((x) => mcpServerOf(x.span) !== undefined)) refusedServerCalls.add(s.spanId);
            set(mcpInfo, 'uri', all.map((x) => stringField(x.span, 'mcpResourceUri')).find((v) => v !== undefined));
            t.mcp = mcpInfo;
          }
          toolCalls.push(t);
          break;
        }
      }
    } catch (err) {
      warnAbout(s, { code: 'malformed-span', message: `skipped span ${s.spanId} (${s.name}): ${errorMessage(err)}`, span: s.spanId, sessionId });
    }
  }

  // The ioa_observe copy of a LangChain tool run is the same call (duplicate-tools.ts).
  const folded = foldDuplicateToolRuns(toolCalls, [agentCalls, taskCalls, llmCalls, masCalls]);
  if (folded.length !== toolCalls.length) toolCalls.splice(0, toolCalls.length, ...folded);

  // 6. Tool definitions offered to the model (else listed by its MCP server, else the tool span's own description) →
  // each ToolCall's definition; MCP calls → the server inventory.
  const defs = new Map<string, ToolDefinition>();
  for (const c of llmCalls) for (const d of c.toolDefinitions) if (!defs.has(d.name)) defs.set(d.name, d);
  const listed = new Map<string, ToolDefinition>();
  for (const srv of inventory.list()) for (const t of srv.tools) if (!listed.has(t.name)) listed.set(t.name, t);
  /** The definition offered under the name the model called the tool by (Claude Agent SDK: `mcp__server__tool`). */
  const offered = (t: ToolCall): ToolDefinition | undefined => {
    const d = defs.get(t.toolName);
    if (d || !t.mcp?.server) return d;
    const prefixed = defs.get(`mcp__${t.mcp.server}__${t.toolName}`);
    return prefixed && { ...prefixed, name: t.toolName };
  };
  for (const t of toolCalls) {
    const d = offered(t) ?? (t.mcp ? listed.get(t.toolName) : undefined) ?? t.definition;
    if (d) t.definition = d;
    if (t.mcp?.server) {
      const srv = inventory.server(t.mcp.server);
      if (t.mcp.kind === 'tool') inventory.addTool(t.mcp.server, d ?? { name: t.toolName });
      else if (t.mcp.kind === 'resource' && t.mcp.uri && !srv.resources.some((r) => r.uri === t.mcp!.uri)) srv.resources.push({ uri: t.mcp.uri });
      else if (t.mcp.kind === 'prompt' && !srv.prompts.some((p) => p.name === t.toolName)) srv.prompts.push({ name: t.toolName });
    }
  }
  // MCP tool calls with no server named: the one known server that offers the tool, else said to be unknown.
  const unnamed = nameMcpServers(toolCalls.filter((t) => !refusedServerCalls.has(t.id)), inventory.list());
  if (unnamed.length > 0) {
    const warning: IngestWarning = { code: 'mcp-server-unknown', message: unknownServerMessage(sessionId, unnamed), span: unnamed[0]!.id, sessionId };
    const first = byId.get(unnamed[0]!.id);
    if (first) warnAbout(first.span, warning);
    else warnings.add(opts.file === undefined ? warning : { ...warning, file: opts.file });
  }

  // LLM calls in start order (built in span order already: the stable sort only makes explicit the order the steps
  // below rely on), grouped once per agent call and per MAS call.
  llmCalls.sort(byStart);
  const llmByAgent = groupBy(llmCalls, (c) => c.agentCallId);
  const llmByMas = groupBy(llmCalls, (c) => c.masCallId);

  // A tool span without a call id takes it from the model's request that asked for it: the latest earlier LLM call
  // of the same agent whose output calls a tool of that name (each id used once).
  const usedIds = new Set(toolCalls.map((t) => t.toolCallId).filter((x): x is string => !!x));
  const requests = new Map<string | undefined, Map<string, ToolRequest[]>>();
  for (const t of toolCalls) {
    if (t.toolCallId) continue;
    let byName = requests.get(t.agentCallId);
    if (!byName) requests.set(t.agentCallId, (byName = toolRequests(llmByAgent.get(t.agentCallId) ?? [])));
    const asked = byName.get(t.toolName) ?? (t.mcp?.server ? byName.get(`mcp__${t.mcp.server}__${t.toolName}`) : undefined);
    const r = latestUnused(asked ?? [], t.startTime, usedIds, t.arguments === undefined ? undefined : stableJson(t.arguments));
    if (r) {
      t.toolCallId = r.id;
      usedIds.add(r.id);
    }
  }

  // 7. Conversation ends: session, MAS calls, agent calls.
  for (const a of agentCalls) {
    const own = llmByAgent.get(a.id) ?? [];
    const ui = firstUserInput(own);
    const fr = finalAssistantResponse(own);
    if (ui !== undefined) a.userInput = ui;
    if (fr !== undefined) a.finalResponse = fr;
  }
  for (const m of masCalls) {
    const own = llmByMas.get(m.id) ?? [];
    const ui = firstUserInput(own);
    const fr = finalAssistantResponse(own);
    if (ui !== undefined) m.userInput = ui;
    if (fr !== undefined) m.finalResponse = fr;
  }

  const elements = [...masCalls, ...agentCalls, ...taskCalls, ...llmCalls, ...toolCalls];
  const timed: readonly { startTime: number; endTime: number }[] = elements.length ? elements : nodes.map((n) => n.span);
  const first = ordered[0];
  const traceIds = [...new Set(ordered.map((s) => s.traceId))]; // first-seen order
  const serviceName = first?.resource['service.name'];
  const userInput = firstUserInput(llmCalls);
  const finalResponse = finalAssistantResponse(llmCalls);
  return {
    kind: 'Session',
    id: sessionId,
    startTime: timed.length ? minOf(timed, (e) => e.startTime) : 0,
    endTime: timed.length ? maxOf(timed, (e) => e.endTime) : 0,
    ...ifDefined('serviceName', typeof serviceName === 'string' ? serviceName : undefined),
    traceIds,
    ...ifDefined('userInput', userInput),
    ...ifDefined('finalResponse', finalResponse),
    masCalls: masCalls.sort(byStart),
    agentCalls: agentCalls.sort(byStart),
    taskCalls: taskCalls.sort(byStart),
    llmCalls,
    toolCalls: toolCalls.sort(byStart),
    mcpServers: inventory.list(),
    ...ifDefined('attributes', first && Object.keys(first.resource).length ? first.resource : undefined),
  };
}
