/**
 * The MCP server of a langchain-mcp-adapters tool call (a LangChain tool span of OpenLLMetry whose run metadata holds
 * the MCP tool's annotations; the adapter records no server): recovered from what the session itself tells, else
 * said to be unknown. Spans written here after the langchain-mcp-adapters fixture (frameworks/README.md).
 */
import { describe, expect, it } from 'vitest';
import { readSessions } from '../src/index.js';
import { tempFiles } from './helpers.js';

const write = tempFiles('mce-mcp-servers');
const TRACE = 'ad0c1e2d3c4b5a69788796a5b4c3d2e1';
const NS = 1_764_576_000_000_000_000n;
const at = (ms: number) => String(NS + BigInt(ms) * 1_000_000n);
const kv = (key: string, value: string) => ({ key, value: { stringValue: value } });

interface SpanSpec {
  id: string;
  parent?: string;
  name: string;
  from: number;
  to: number;
  attrs: Record<string, string>;
}
const span = (s: SpanSpec) => ({
  traceId: TRACE, spanId: s.id, ...(s.parent ? { parentSpanId: s.parent } : {}), name: s.name, kind: 'SPAN_KIND_INTERNAL',
  startTimeUnixNano: at(s.from), endTimeUnixNano: at(s.to), attributes: Object.entries(s.attrs).map(([k, v]) => kv(k, v)), status: {},
});

/** A LangChain tool run of an MCP tool loaded by langchain-mcp-adapters (its metadata: the MCP annotations). */
const mcpToolRun = (id: string, tool: string, from: number): SpanSpec => ({
  id, parent: '0000000000000e02', name: `${tool}.tool`, from, to: from + 100,
  attrs: {
    'traceloop.span.kind': 'tool',
    'traceloop.entity.name': tool,
    'traceloop.entity.input': JSON.stringify({ input_str: "{'city': 'Lyon'}", metadata: { title: null, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true, langgraph_node: 'tools' }, inputs: { city: 'Lyon' }, kwargs: { tool_call_id: `call_${id}` } }),
  },
});

/** An MCP client's `tools/list` of server `server` (OTel MCP attributes), listing `tools`. */
const listing = (id: string, server: string, tools: string[], from: number): SpanSpec => ({
  id, parent: '0000000000000e01', name: 'tools/list', from, to: from + 5,
  attrs: { 'mcp.method.name': 'tools/list', 'mcp.server.name': server, 'mcp.response.result': JSON.stringify({ tools: tools.map((name) => ({ name, description: `${name} of ${server}` })) }) },
});

async function sessionOf(extra: SpanSpec[]) {
  const spans = [
    { id: '0000000000000e01', name: 'LangGraph.workflow', from: 0, to: 3000, attrs: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'LangGraph' } },
    { id: '0000000000000e02', parent: '0000000000000e01', name: 'tools.task', from: 1000, to: 1800, attrs: { 'traceloop.span.kind': 'task', 'traceloop.entity.name': 'tools' } },
    ...extra,
  ];
  const { sessions, warnings } = await readSessions(write(JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv('service.name', 'demo')] }, scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.langchain' }, spans: spans.map(span) }] }] })));
  expect(sessions).toHaveLength(1);
  return { s: sessions[0]!, warnings };
}

const calls = (s: Awaited<ReturnType<typeof sessionOf>>['s']) => s.toolCalls.map((t) => [t.toolName, t.mcp?.server ?? null]);

describe('the MCP server of a langchain-mcp-adapters tool call', () => {
  it('nothing in the session names it: unknown, said once in a warning naming the tools (never guessed)', async () => {
    const { s, warnings } = await sessionOf([mcpToolRun('0000000000000e03', 'get_forecast', 1001), mcpToolRun('0000000000000e04', 'get_alerts', 1200)]);
    expect(calls(s)).toEqual([['get_forecast', null], ['get_alerts', null]]);
    expect(s.toolCalls.every((t) => t.mcp?.kind === 'tool')).toBe(true);
    expect(s.mcpServers).toEqual([]);
    expect(warnings.map((w) => [w.code, w.span])).toEqual([['mcp-server-unknown', '0000000000000e03']]);
    expect(warnings[0]!.message).toContain('2 MCP tool call(s)');
    expect(warnings[0]!.message).toContain('(get_forecast, get_alerts)');
  });

  it('the one server whose tools/list offers the tool is its server', async () => {
    const { s, warnings } = await sessionOf([listing('0000000000000e10', 'weather', ['get_forecast', 'get_alerts'], 500), listing('0000000000000e11', 'files', ['read_file'], 510), mcpToolRun('0000000000000e03', 'get_forecast', 1001)]);
    expect(warnings).toEqual([]);
    expect(calls(s)).toEqual([['get_forecast', 'weather']]);
    expect(s.toolCalls[0]!.definition).toEqual({ name: 'get_forecast', description: 'get_forecast of weather' });
    expect(s.mcpServers.map((m) => [m.name, m.tools.map((t) => t.name)])).toEqual([['weather', ['get_forecast', 'get_alerts']], ['files', ['read_file']]]);
  });

  it('two servers offering a tool of that name: unknown, not one of them picked', async () => {
    const { s, warnings } = await sessionOf([listing('0000000000000e10', 'weather', ['search'], 500), listing('0000000000000e11', 'web', ['search'], 510), mcpToolRun('0000000000000e03', 'search', 1001)]);
    expect(calls(s)).toEqual([['search', null]]);
    expect(warnings.map((w) => w.code)).toEqual(['mcp-server-unknown']);
  });

  it('a tool named with its server prefix (tool_name_prefix: weather_get_forecast) is that server\'s get_forecast', async () => {
    const { s, warnings } = await sessionOf([listing('0000000000000e10', 'weather', ['get_forecast'], 500), mcpToolRun('0000000000000e03', 'weather_get_forecast', 1001)]);
    expect(warnings).toEqual([]);
    expect(calls(s)).toEqual([['get_forecast', 'weather']]);
  });

  it('an MCP client span inside the tool run names the server: one call, of that server', async () => {
    const client: SpanSpec = { id: '0000000000000e05', parent: '0000000000000e03', name: 'tools/call get_forecast', from: 1010, to: 1090, attrs: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_forecast', 'mcp.server.name': 'weather' } };
    const { s, warnings } = await sessionOf([mcpToolRun('0000000000000e03', 'get_forecast', 1001), client]);
    expect(warnings).toEqual([]);
    expect(s.toolCalls.map((t) => [t.id, t.toolName, t.mcp])).toEqual([['0000000000000e03', 'get_forecast', { kind: 'tool', method: 'tools/call', server: 'weather' }]]);
  });
});
