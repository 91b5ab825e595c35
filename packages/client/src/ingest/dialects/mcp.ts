/**
 * Model Context Protocol, OpenTelemetry MCP conventions: `mcp.method.name` (`tools/call`, `resources/read`,
 * `prompts/get`, `tools/list`, …), `mcp.resource.uri`, `gen_ai.tool.name`, `gen_ai.prompt.name`.
 * The conventions have no server-name key: `mcp.server.name` is read first, then `server.address`.
 */
import type { Classification, Dialect } from './types.js';

const CALL_METHODS: Record<string, Classification> = {
  'tools/call': { kind: 'tool', mcpMethod: 'tools/call' },
  'resources/read': { kind: 'tool', mcpMethod: 'resources/read' },
  'prompts/get': { kind: 'tool', mcpMethod: 'prompts/get' },
};

export const mcp: Dialect = {
  name: 'mcp',
  classify(span) {
    const m = span.attributes['mcp.method.name'];
    if (typeof m !== 'string' || m === '') return undefined;
    // Listing, initialize, ping, notifications: MCP traffic that is not a tool use (lists feed the inventory).
    return CALL_METHODS[m] ?? { kind: 'mcp', mcpMethod: m };
  },
  fields: {
    mcpServer: ['mcp.server.name', 'server.address'],
    mcpTransport: ['mcp.transport', 'network.transport'],
    mcpResourceUri: ['mcp.resource.uri'],
    mcpPromptName: ['gen_ai.prompt.name', 'mcp.prompt.name'],
    toolName: ['mcp.tool.name'],
    output: ['mcp.response.result', 'mcp.result'],
  },
};
