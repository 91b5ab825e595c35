/**
 * The session's MCP servers: what listing spans (`tools/list` …) report, the tools, resources and prompts its calls
 * used, and the server names, one with a control character refused (said once per name).
 */
import { hasControlCharacter, NO_CONTROL_CHARACTER, quoteControlCharacters, type MCPServer, type ToolDefinition } from '@mce/core';
import { field, stringField } from '../dialects/index.js';
import { isObj, normaliseToolDefinitions, parseJsonMaybe } from '../messages.js';
import type { SpanRecord } from '../span.js';
import { mcpServerOf } from './span-facts.js';
import { ifDefined, type Context, type Node } from './node.js';

/** Tools, resources and prompts a listing span (`tools/list` …) reports (its output JSON, or GenAI tool definitions on it). */
export function listedInventory(span: SpanRecord): Partial<Pick<MCPServer, 'tools' | 'resources' | 'prompts'>> {
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

export class Inventory {
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


/**
 * An MCP server name is a key of the stores, as in the session format: one with a control character is left out of
 * the inventory (and of the calls to it), said once per name.
 */
export class ServerNames {
  private refused = new Set<string>();
  /** Tool calls whose server name was refused: said already, so not looked for elsewhere either. */
  readonly refusedCalls = new Set<string>();
  constructor(private ctx: Context) {}

  of(span: SpanRecord): string | undefined {
    const server = mcpServerOf(span);
    if (server === undefined || !hasControlCharacter(server.name)) return server?.name;
    if (!this.refused.has(server.name)) {
      this.refused.add(server.name);
      this.ctx.warnAbout(span, {
        code: 'malformed-span',
        message: `span ${span.spanId}: MCP server name ${quoteControlCharacters(server.name)}${server.source ? ` (${server.source})` : ''} ${NO_CONTROL_CHARACTER}; left out of the inventory`,
        span: span.spanId,
        sessionId: this.ctx.sessionId,
      });
    }
    return undefined;
  }
}

/** A listing span (`tools/list`, `resources/list`, `prompts/list`) adds what it lists to its server's inventory. */
export function addListing(n: Node, servers: ServerNames, inventory: Inventory): void {
  const s = n.span;
  const server = servers.of(s);
  if (!server || !/\/list$/.test(n.cls.mcpMethod ?? '')) return;
  const inv = listedInventory(s);
  const srv = inventory.server(server);
  const transport = stringField(s, 'mcpTransport');
  if (transport && !srv.transport) srv.transport = transport;
  for (const t of inv.tools ?? []) inventory.addTool(server, t);
  for (const r of inv.resources ?? []) if (!srv.resources.some((x) => x.uri === r.uri)) srv.resources.push(r);
  for (const p of inv.prompts ?? []) if (!srv.prompts.some((x) => x.name === p.name)) srv.prompts.push(p);
}
