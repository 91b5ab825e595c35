/**
 * Step 6, tool definitions: each ToolCall's definition is the one offered to the model (else listed by its MCP
 * server, else the tool span's own description); MCP calls fill the server inventory; MCP tool calls with no server
 * named get the one known server that offers the tool, else are said to be unknown.
 */
import type { LLMCall, ToolCall, ToolDefinition } from '@mce/core';
import type { IngestWarning } from '../errors.js';
import { nameMcpServers, unknownServerMessage } from '../mcp-server-names.js';
import type { Context, Node } from './node.js';
import type { Inventory, ServerNames } from './inventory.js';

export function attachToolDefinitions(toolCalls: readonly ToolCall[], llmCalls: readonly LLMCall[], inventory: Inventory): void {
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
}

/** MCP tool calls with no server named: the one known server that offers the tool, else one warning for the session. */
export function nameUnnamedServers(toolCalls: readonly ToolCall[], inventory: Inventory, servers: ServerNames, byId: ReadonlyMap<string, Node>, ctx: Context): void {
  const unnamed = nameMcpServers(toolCalls.filter((t) => !servers.refusedCalls.has(t.id)), inventory.list());
  if (unnamed.length === 0) return;
  const warning: IngestWarning = { code: 'mcp-server-unknown', message: unknownServerMessage(ctx.sessionId, unnamed), span: unnamed[0]!.id, sessionId: ctx.sessionId };
  const first = byId.get(unnamed[0]!.id);
  if (first) ctx.warnAbout(first.span, warning);
  else ctx.opts.warnings.add(ctx.opts.file === undefined ? warning : { ...warning, file: ctx.opts.file });
}
