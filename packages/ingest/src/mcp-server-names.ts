/**
 * MCP tool calls whose spans name no server. langchain-mcp-adapters turns MCP tools into LangChain tools and records
 * no server on them: the server name is only in the app's MultiServerMCPClient configuration (its connection names),
 * which no span carries. What the session itself tells is used, never a guess:
 * - an MCP span inside the tool run that names its server (an instrumented MCP client) is merged into the call
 *   before this (normalise.ts);
 * - else the servers known to the session (listed by `tools/list` spans, or named by its other MCP calls): the one
 *   server that offers a tool of the call's name, or of its name less a server's prefix (the adapter's
 *   `tool_name_prefix` names a tool `<server>_<tool>`);
 * - else the server stays unknown, and the caller says so (one warning per session naming the tools).
 */
import type { MCPServer, ToolCall } from '@mce/core';

/** The one server (and its tool name) that offers `name`, plain or with that server's `<server>_` prefix. */
function offeringServer(name: string, servers: readonly MCPServer[]): { server: string; tool: string } | undefined {
  const found: { server: string; tool: string }[] = [];
  for (const s of servers) {
    const prefix = `${s.name}_`;
    if (s.tools.some((t) => t.name === name)) found.push({ server: s.name, tool: name });
    else if (name.startsWith(prefix) && s.tools.some((t) => t.name === name.slice(prefix.length))) found.push({ server: s.name, tool: name.slice(prefix.length) });
  }
  return found.length === 1 ? found[0] : undefined;
}

/**
 * Names the server of each MCP tool call that has none, where exactly one known server offers its tool; returns the
 * calls whose server is still unknown.
 */
export function nameMcpServers(toolCalls: readonly ToolCall[], servers: readonly MCPServer[]): ToolCall[] {
  const unknown: ToolCall[] = [];
  for (const t of toolCalls) {
    if (!t.mcp || t.mcp.server !== undefined || t.mcp.kind !== 'tool') continue;
    const offered = offeringServer(t.toolName, servers);
    if (!offered) {
      unknown.push(t);
      continue;
    }
    t.mcp.server = offered.server;
    if (offered.tool !== t.toolName) {
      t.toolName = offered.tool;
      const listed = servers.find((s) => s.name === offered.server)?.tools.find((d) => d.name === offered.tool);
      if (listed) t.definition = listed;
    }
  }
  return unknown;
}

/** The warning's text for the calls whose MCP server is unknown. */
export function unknownServerMessage(sessionId: string, calls: readonly ToolCall[]): string {
  const names = [...new Set(calls.map((c) => c.toolName))];
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? `, … (${names.length - 5} more)` : '');
  return `${calls.length} MCP tool call(s) of session ${sessionId} name no MCP server (${shown}): their spans record none (langchain-mcp-adapters does not) and no known server of the session offers the tool; their server is unknown, not guessed`;
}
