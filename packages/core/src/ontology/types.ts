/**
 * The MAS ontology as plain TypeScript types: what every metric, store and ingester agrees on.
 * Validation lives in `schemas.ts` (zod, at the edges); inside the engine these types are trusted.
 *
 * Times are epoch milliseconds (fractional: sub-millisecond precision from nanosecond traces is kept).
 * A session is stored flat: each element list holds every element of that class, linked by ids
 * (`parentId` = span parent, `masCallId` / `agentCallId` = the enclosing MAS call / nearest ancestor agent call).
 */

export const ONTOLOGY_LEVELS = ['Session', 'MASCall', 'AgentCall', 'TaskCall', 'LLMCall', 'ToolCall'] as const;
export type OntologyLevel = (typeof ONTOLOGY_LEVELS)[number];
/** Levels that are calls inside a session (everything but the Session itself). */
export type CallLevel = Exclude<OntologyLevel, 'Session'>;

export type Status = 'ok' | 'error' | 'unset';

export interface ElementError {
  /** `error.type` or the exception type. */
  type?: string;
  message?: string;
}

/** Fields every execution element below the session carries. */
export interface CallBase {
  /** Span id (hex), unique within the session. */
  id: string;
  traceId?: string;
  /** Span id of the parent span, when it is part of the session. */
  parentId?: string;
  /** The MASCall this element belongs to. */
  masCallId?: string;
  /** Nearest ancestor AgentCall (for an AgentCall: its enclosing agent call, if nested). */
  agentCallId?: string;
  /** Span name as emitted. */
  name: string;
  startTime: number;
  endTime: number;
  status: Status;
  error?: ElementError;
  input?: unknown;
  output?: unknown;
  /** Attributes kept verbatim from the source span (flattened keys). */
  attributes?: Record<string, unknown>;
}

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool' | (string & {});

export interface MessageToolCall {
  id?: string;
  name: string;
  arguments?: unknown;
}

/** One normalised chat message: role, text, tool calls made, or the tool result it carries. */
export interface Message {
  role: MessageRole;
  content: string;
  /** Sender name (e.g. an agent or tool name), when the source gives one. */
  name?: string;
  toolCalls?: MessageToolCall[];
  /** For a `tool` message: the id of the call it answers. */
  toolCallId?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  inputSchema?: Record<string, unknown>;
}

export interface TokenUsage {
  /** Input tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** As reported by the source; otherwise input + output. */
  totalTokens: number;
  /**
   * false when the source recorded no token count for the call ("usage not reported"): the counts above are then 0
   * placeholders, not measurements, and token and cost metrics skip the call. Absent: the counts were reported.
   */
  reported?: boolean;
}

export type LLMOperation = 'chat' | 'text_completion' | 'generate_content' | 'embeddings';

export interface MASCall extends CallBase {
  kind: 'MASCall';
  workflowName?: string;
  userInput?: string;
  finalResponse?: string;
}

export interface AgentCall extends CallBase {
  kind: 'AgentCall';
  agentName: string;
  agentId?: string;
  userInput?: string;
  finalResponse?: string;
  /** MCP servers this agent had (overrides the session inventory when present). */
  mcpServers?: MCPServer[];
}

export interface TaskCall extends CallBase {
  kind: 'TaskCall';
  taskName: string;
}

export interface LLMCall extends CallBase {
  kind: 'LLMCall';
  operation: LLMOperation;
  requestModel?: string;
  responseModel?: string;
  provider?: string;
  usage: TokenUsage;
  /** The request's messages, normalised. */
  inputMessages: Message[];
  /** The response's messages (usually one assistant message). */
  outputMessages: Message[];
  finishReasons: string[];
  /** Tools offered to the model on this request. */
  toolDefinitions: ToolDefinition[];
}

export type MCPPrimitiveKind = 'tool' | 'resource' | 'prompt';

export interface MCPCallInfo {
  /** MCP server name. */
  server?: string;
  /** `tools/call` → tool, `resources/read` → resource, `prompts/get` → prompt. */
  kind: MCPPrimitiveKind;
  /** The MCP method as emitted (`tools/call`, …). */
  method?: string;
  /** For a resource read. */
  uri?: string;
}

export interface ToolCall extends CallBase {
  kind: 'ToolCall';
  /** Tool name; for an MCP resource read, the resource name or uri; for a prompt, the prompt name. */
  toolName: string;
  toolCallId?: string;
  arguments?: unknown;
  result?: unknown;
  /** The definition offered to the model under this name (or the MCP-listed one); else the name and description the tool span itself carries. */
  definition?: ToolDefinition;
  mcp?: MCPCallInfo;
}

export interface MCPTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}
export interface MCPResource {
  uri: string;
  name?: string;
  description?: string;
  mimeType?: string;
}
export interface MCPPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}
export interface MCPPrompt {
  name: string;
  description?: string;
  arguments?: MCPPromptArgument[];
}
export interface MCPServer {
  name: string;
  transport?: string;
  tools: MCPTool[];
  resources: MCPResource[];
  prompts: MCPPrompt[];
}

export interface Session {
  kind: 'Session';
  id: string;
  /** Earliest start and latest end of the session's elements (derived at ingestion). */
  startTime: number;
  endTime: number;
  serviceName?: string;
  appName?: string;
  traceIds: string[];
  /** First user message of the session. */
  userInput?: string;
  /** Last assistant message meant for the user. */
  finalResponse?: string;
  masCalls: MASCall[];
  agentCalls: AgentCall[];
  taskCalls: TaskCall[];
  llmCalls: LLMCall[];
  toolCalls: ToolCall[];
  mcpServers: MCPServer[];
  attributes?: Record<string, unknown>;
}

export type Call = MASCall | AgentCall | TaskCall | LLMCall | ToolCall;
export type Element = Session | Call;

/** The element type measured at each level. */
export interface ElementByLevel {
  Session: Session;
  MASCall: MASCall;
  AgentCall: AgentCall;
  TaskCall: TaskCall;
  LLMCall: LLMCall;
  ToolCall: ToolCall;
}

/** The Session property that lists the calls of each level. */
export const CALL_LISTS = {
  MASCall: 'masCalls',
  AgentCall: 'agentCalls',
  TaskCall: 'taskCalls',
  LLMCall: 'llmCalls',
  ToolCall: 'toolCalls',
} as const satisfies Record<CallLevel, keyof Session>;

/** Every element of the session at `level` (the session itself for `Session`). */
export function elementsAt<L extends OntologyLevel>(session: Session, level: L): ElementByLevel[L][] {
  if (level === 'Session') return [session] as ElementByLevel[L][];
  return session[CALL_LISTS[level as CallLevel]] as ElementByLevel[L][];
}

export function emptyUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 };
}

/** How many calls (MAS, agent, task, LLM and tool calls) the session holds. */
export function elementCount(s: Session): number {
  return s.masCalls.length + s.agentCalls.length + s.taskCalls.length + s.llmCalls.length + s.toolCalls.length;
}
