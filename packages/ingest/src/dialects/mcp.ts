/**
 * Model Context Protocol, OpenTelemetry MCP conventions: `mcp.method.name` (`tools/call`, `resources/read`,
 * `prompts/get`, `tools/list`, …), `mcp.resource.uri`, `gen_ai.tool.name`, `gen_ai.prompt.name`.
 * The conventions have no server-name key: `mcp.server.name` is read first, then FastMCP's `fastmcp.server.name`
 * (its server spans; its client spans name none, and take the server's when the server span is inside them),
 * `rpc.service` of an `rpc.system=mcp` span, the server in a Claude Agent SDK tool name, then `server.address`.
 * Claude Agent SDK names the tools of MCP servers `mcp__<server>__<tool>`: such a tool span is an MCP `tools/call`.
 * langchain-mcp-adapters turns MCP tools into LangChain tools whose metadata is the MCP tool's annotations
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`) and `_meta`; OpenLLMetry records a tool run's
 * metadata in `traceloop.entity.input`: a LangChain tool span carrying them is an MCP `tools/call` (server unnamed).
 */
import type { SpanRecord } from '../span.js';
import { isObj, parseJsonMaybe } from '../messages.js';
import type { Classification, Dialect } from './types.js';

const CLAUDE_MCP_TOOL = /^mcp__(.+?)__(.+)$/;

/** `mcp__weather__get_forecast` → server `weather`, tool `get_forecast` (Claude Agent SDK's names of MCP tools). */
export function claudeMcpTool(name: string): { server: string; tool: string } | undefined {
  const m = CLAUDE_MCP_TOOL.exec(name);
  return m ? { server: m[1]!, tool: m[2]! } : undefined;
}

/** The Claude Agent SDK MCP tool a span runs, from its tool name or its span name (`execute_tool mcp__s__t`). */
function claudeToolOf(span: SpanRecord): { server: string; tool: string } | undefined {
  const a = span.attributes;
  const named = typeof a['gen_ai.tool.name'] === 'string' ? a['gen_ai.tool.name'] : typeof a['tool.name'] === 'string' ? a['tool.name'] : undefined;
  if (named !== undefined) return named.startsWith('mcp__') ? claudeMcpTool(named) : undefined;
  // Asked of every span without an MCP method: the pattern only for a name that has the prefix.
  return span.name.includes('mcp__') ? claudeMcpTool(span.name.replace(/^execute_tool\s+/, '')) : undefined;
}

const MCP_ANNOTATIONS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/** Whether a LangChain tool span runs an MCP tool loaded by langchain-mcp-adapters (its metadata is MCP's). */
function langchainMcpTool(span: SpanRecord): boolean {
  const a = span.attributes;
  if (a['traceloop.span.kind'] !== 'tool' || typeof a['traceloop.entity.input'] !== 'string') return false;
  const input = parseJsonMaybe(a['traceloop.entity.input']);
  const metadata = isObj(input) && isObj(input.metadata) ? input.metadata : undefined;
  return !!metadata && (MCP_ANNOTATIONS.some((k) => typeof metadata[k] === 'boolean') || isObj(metadata._meta));
}

const rpcService = (span: SpanRecord) => (span.attributes['rpc.system'] === 'mcp' ? span.attributes['rpc.service'] : undefined);

const CALL_METHODS: Record<string, Classification> = {
  'tools/call': { kind: 'tool', mcpMethod: 'tools/call' },
  'resources/read': { kind: 'tool', mcpMethod: 'resources/read' },
  'prompts/get': { kind: 'tool', mcpMethod: 'prompts/get' },
};

export const mcp: Dialect = {
  name: 'mcp',
  classify(span) {
    const m = span.attributes['mcp.method.name'];
    if (typeof m !== 'string' || m === '') return claudeToolOf(span) || langchainMcpTool(span) ? CALL_METHODS['tools/call'] : undefined;
    // Listing, initialize, ping, notifications: MCP traffic that is not a tool use (lists feed the inventory).
    return CALL_METHODS[m] ?? { kind: 'mcp', mcpMethod: m };
  },
  fields: {
    mcpServer: ['mcp.server.name', 'fastmcp.server.name', rpcService, (s) => claudeToolOf(s)?.server, 'server.address'],
    mcpTransport: ['mcp.transport', 'network.transport'],
    mcpResourceUri: ['mcp.resource.uri'],
    mcpPromptName: ['gen_ai.prompt.name', 'mcp.prompt.name'],
    toolName: ['mcp.tool.name'],
    output: ['mcp.response.result', 'mcp.result'],
  },
};
