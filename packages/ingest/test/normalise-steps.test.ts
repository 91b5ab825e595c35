/**
 * The steps of normaliseSession (src/normalise/), each on its own: the span tree, the final kinds, the relations of
 * the elements, the MAS calls, the elements, tool definitions and call ids, conversation ends and the session.
 * The whole function is tested by the dialect, fixture and fuzz suites; these pin what each step hands the next.
 */
import { describe, expect, it } from 'vitest';
import type { LLMCall, ToolCall } from '@mce/core';
import { WarningSink } from '../src/errors.js';
import { MISSING_PARENT_KEY, groupBy } from '../src/links.js';
import type { SpanRecord } from '../src/span.js';
import { setConversationEnds } from '../src/normalise/conversation-ends.js';
import { buildElements } from '../src/normalise/elements.js';
import { addListing, Inventory, ServerNames } from '../src/normalise/inventory.js';
import { settleKinds } from '../src/normalise/kinds.js';
import { masCallsOf } from '../src/normalise/mas-calls.js';
import { createContext } from '../src/normalise/node.js';
import { buildTree } from '../src/normalise/nodes.js';
import { relate } from '../src/normalise/relations.js';
import { assembleSession } from '../src/normalise/session.js';
import { fillToolCallIds, latestUnused, toolRequests } from '../src/normalise/tool-call-ids.js';
import { attachToolDefinitions, nameUnnamedServers } from '../src/normalise/tool-definitions.js';

const T = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const id = (n: string) => n.padStart(16, '0');
function span(n: string, attrs: Record<string, unknown>, start: number, parent?: string, more: Partial<SpanRecord> = {}): SpanRecord {
  return {
    traceId: T,
    spanId: id(n),
    ...(parent ? { parentSpanId: id(parent) } : {}),
    name: String(attrs.name ?? n),
    kind: 'internal',
    startTime: start,
    endTime: start + 10,
    status: { code: 'unset' },
    attributes: attrs,
    resource: {},
    events: [],
    ...more,
  };
}
const op = (name: string, extra: Record<string, unknown> = {}) => ({ 'gen_ai.operation.name': name, ...extra });
const agent = (name: string) => op('invoke_agent', { 'gen_ai.agent.name': name });
const chat = op('chat');
const tool = (name: string, extra: Record<string, unknown> = {}) => op('execute_tool', { 'gen_ai.tool.name': name, ...extra });
const workflow = op('invoke_workflow');

function setup(spans: SpanRecord[], opts: { file?: string } = {}) {
  const warnings = new WarningSink();
  const ctx = createContext('s', { warnings, ...opts });
  const tree = buildTree(spans, ctx);
  return { warnings, ctx, tree };
}
/** Steps 1 to 4, as normaliseSession runs them. */
function through4(spans: SpanRecord[]) {
  const s = setup(spans);
  const mergedInto = settleKinds(s.tree.nodes);
  const rel = relate(s.tree);
  const mas = masCallsOf(s.tree.nodes, rel);
  return { ...s, mergedInto, rel, mas, node: (n: string) => s.tree.byId.get(id(n))! };
}

describe('step 1: the span tree', () => {
  it('one node per span id in start order, the first copy kept and the copy said where it is', () => {
    const { tree, warnings } = setup([span('2', chat, 20, '1'), span('1', agent('a'), 10), span('2', { name: 'copy' }, 30, undefined, { line: 7 })], { file: 'f.jsonl' });
    expect(tree.nodes.map((n) => n.span.spanId)).toEqual([id('1'), id('2')]);
    expect(tree.byId.get(id('2'))?.span.startTime).toBe(20);
    expect(tree.ordered.map((s) => s.startTime)).toEqual([10, 20, 30]);
    expect(tree.byId.get(id('2'))?.parent).toBe(tree.byId.get(id('1')));
    expect(warnings.list).toEqual([
      { code: 'duplicate-span', message: `span ${id('2')} (copy) appears twice; the first copy is kept`, span: id('2'), sessionId: 's', file: 'f.jsonl', line: 7 },
    ]);
  });

  it('parents outside the spans are said once per session, naming at most five', () => {
    const spans = ['1', '2', '3', '4', '5', '6'].map((n, i) => span(n, chat, i, `9${n}`));
    const { tree, warnings } = setup(spans);
    expect(tree.nodes.every((n) => n.parent === undefined)).toBe(true);
    expect(warnings.counts).toEqual({ 'unknown-parent': 1 });
    expect(warnings.list[0]?.message).toMatch(/^6 span\(s\) of session s name a parent span that is not among its spans .*, … \(1 more\)\)/);
  });

  it('a parent cycle is cut where its walk (from the first span) closes', () => {
    const { tree } = setup([span('1', chat, 1, '3'), span('2', chat, 2, '1'), span('3', chat, 3, '2')]);
    const parentOf = (n: string) => tree.byId.get(id(n))?.parent?.span.spanId;
    // 1 → 3 → 2 → 1: span 2, the last before the walk comes back to 1, loses its parent.
    expect([parentOf('1'), parentOf('2'), parentOf('3')]).toEqual([id('3'), undefined, id('2')]);
  });
});

describe('step 2: the final kinds', () => {
  it('a workflow inside an agent is a task; a root chain that runs agents is the MAS call', () => {
    const { tree } = setup([span('1', { name: 'graph', 'traceloop.span.kind': 'task' }, 1), span('2', agent('a'), 2, '1'), span('3', workflow, 3, '2')]);
    settleKinds(tree.nodes);
    expect(tree.nodes.map((n) => n.cls.kind)).toEqual(['mas', 'agent', 'task']);
    expect(tree.nodes.every((n) => n.element)).toBe(true);
  });

  it('an agent run inside an agent span of its own name is plumbing', () => {
    const { tree } = setup([span('1', agent('planner'), 1), span('2', agent('planner'), 2, '1'), span('3', agent('other'), 3, '2')]);
    settleKinds(tree.nodes);
    expect(tree.nodes.map((n) => [n.cls.kind, n.element])).toEqual([['agent', true], ['other', false], ['agent', true]]);
  });

  it('an LLM span inside an LLM span, and a tool inside a tool of the same name, merge into the outermost', () => {
    const { tree } = setup([
      span('1', chat, 1), span('2', chat, 1, '1'), span('3', { name: 'http', 'http.method': 'POST' }, 1, '2'), span('4', chat, 1, '3'),
      span('5', tool('search'), 20), span('6', tool('search'), 21, '5'), span('7', tool('fetch'), 22, '5'),
    ]);
    const mergedInto = settleKinds(tree.nodes);
    const merged = [...mergedInto].map(([inner, outer]) => [inner.span.spanId, outer.span.spanId]);
    expect(merged).toEqual([[id('2'), id('1')], [id('4'), id('1')], [id('6'), id('5')]]);
    expect(tree.nodes.filter((n) => n.element).map((n) => n.span.spanId)).toEqual([id('1'), id('5'), id('7')]);
  });
});

describe('step 3: relations', () => {
  it('agent call by ancestor, else by the window of an agent span that is a sibling under an ancestor', () => {
    const { node, rel } = through4([
      span('1', { name: 'executor' }, 0), span('2', agent('writer'), 5, '1'), span('3', chat, 8, '1'), span('4', chat, 30, '1'), span('5', chat, 6, '2'),
    ]);
    expect(rel.agentOf(node('5'))).toBe(id('2'));
    expect(rel.agentOf(node('3'))).toBe(id('2')); // a sibling, its window holds the start
    expect(rel.agentOf(node('4'))).toBeUndefined(); // after the agent's window
    expect(rel.nearestElement(node('5'))).toBe(node('2'));
  });

  it('the missing parent is where the chain leaves the spans; the reserved key is dropped from a span of the source', () => {
    const { node, rel } = through4([span('1', { name: 'http', 'http.method': 'GET' }, 0, '9'), span('2', chat, 1, '1'), span('3', { ...chat, [MISSING_PARENT_KEY]: 'x' }, 2)]);
    expect(rel.missingParent(node('2'))).toBe(id('9'));
    expect(rel.attributesOf(node('2'), undefined)).toEqual({ ...chat, [MISSING_PARENT_KEY]: id('9') });
    expect(rel.attributesOf(node('2'), id('1'))).toEqual(chat);
    expect(rel.attributesOf(node('3'), undefined)).toEqual(chat);
  });
});

describe('step 4: MAS calls', () => {
  it('an explicit workflow span, named from `invoke_workflow NAME`, holds its elements', () => {
    const { mas, node } = through4([span('1', { ...workflow, name: 'invoke_workflow research' }, 0), span('2', chat, 1, '1')]);
    expect(mas.masCalls.map((m) => [m.id, m.workflowName])).toEqual([[id('1'), 'research']]);
    expect(mas.masOf(node('2'))).toBe(id('1'));
    expect(mas.masOf(node('1'))).toBeUndefined();
  });

  it('without one: an implicit MAS call per trace with calls, its id the trace id and its status its root span\'s', () => {
    const other = 'beef0000beef0000beef0000beef0000';
    const { mas, node } = through4([
      span('1', { name: 'root' }, 0, undefined, { status: { code: 'ok' } }), span('2', chat, 5, '1', { status: { code: 'error' } }),
      span('3', { name: 'plumbing only' }, 100, undefined, { traceId: other }),
    ]);
    expect(mas.masCalls).toEqual([{ kind: 'MASCall', id: T, traceId: T, name: 'root', startTime: 0, endTime: 15, status: 'ok' }]);
    expect(mas.masOf(node('2'))).toBe(T);
  });
});

describe('step 5: elements', () => {
  it('builds each kind with its links; a merged inner LLM span fills what the outer did not record', () => {
    const s = through4([
      span('1', agent('a'), 0), span('2', chat, 1, '1'), span('3', { ...chat, 'gen_ai.request.model': 'gpt-x', 'gen_ai.usage.input_tokens': 7 }, 1, '2'),
      span('4', tool('search', { 'gen_ai.tool.call.arguments': '{"q":1}' }), 5, '1'), span('5', op('create_agent'), 6, '1'),
    ]);
    const els = buildElements(s.tree.nodes, s.mergedInto, { ...s.rel, masOf: s.mas.masOf }, s.mas.masCalls, s.ctx);
    expect(els.agentCalls.map((a) => [a.id, a.agentName, a.masCallId])).toEqual([[id('1'), 'a', T]]);
    expect(els.llmCalls.map((c) => [c.id, c.requestModel, c.usage.inputTokens, c.agentCallId, c.parentId])).toEqual([[id('2'), 'gpt-x', 7, id('1'), id('1')]]);
    expect(els.toolCalls.map((t) => [t.toolName, t.arguments, t.agentCallId])).toEqual([['search', { q: 1 }, id('1')]]);
    expect(els.taskCalls.map((t) => t.id)).toEqual([id('5')]);
    expect(s.warnings.total).toBe(0);
  });

  it('a listing span fills its server inventory; a server name with a control character is refused, said once', () => {
    const warnings = new WarningSink();
    const ctx = createContext('s', { warnings });
    const servers = new ServerNames(ctx);
    const inventory = new Inventory();
    const listing = (n: string, server: string) => ({
      span: span(n, { 'mcp.method.name': 'tools/list', 'mcp.server.name': server, 'mcp.transport': 'stdio', 'gen_ai.tool.definitions': JSON.stringify([{ name: 'search', description: 'd' }]) }, 1),
      cls: { kind: 'mcp' as const, mcpMethod: 'tools/list' },
    });
    addListing(listing('1', 'docs'), servers, inventory);
    addListing(listing('2', 'bad\u0007'), servers, inventory);
    addListing(listing('3', 'bad\u0007'), servers, inventory);
    expect(inventory.list()).toEqual([{ name: 'docs', transport: 'stdio', tools: [{ name: 'search', description: 'd' }], resources: [], prompts: [] }]);
    expect(warnings.counts).toEqual({ 'malformed-span': 1 });
    expect(warnings.list[0]?.message).toContain('left out of the inventory');
  });
});

const llm = (n: string, start: number, calls: { id: string; name: string; arguments?: unknown }[], agentCallId = 'A'): LLMCall =>
  ({ kind: 'LLMCall', id: n, startTime: start, agentCallId, toolDefinitions: [], outputMessages: [{ role: 'assistant', content: '', toolCalls: calls }], inputMessages: [] }) as unknown as LLMCall;
const toolCall = (n: string, start: number, name: string, more: Partial<ToolCall> = {}): ToolCall =>
  ({ kind: 'ToolCall', id: n, startTime: start, toolName: name, agentCallId: 'A', ...more }) as ToolCall;

describe('step 6: tool definitions and call ids', () => {
  it('a definition offered to the model first, else listed by its MCP server; MCP calls fill the inventory', () => {
    const inventory = new Inventory();
    inventory.addTool('docs', { name: 'read', description: 'listed' });
    const offered = { ...llm('l', 0, []), toolDefinitions: [{ name: 'search', description: 'offered' }] } as LLMCall;
    const calls = [
      toolCall('t1', 1, 'search', { definition: { name: 'search', description: 'own' } }),
      toolCall('t2', 2, 'read', { mcp: { kind: 'tool', method: 'tools/call', server: 'docs' } }),
      toolCall('t3', 3, 'other', { definition: { name: 'other', description: 'own' }, mcp: { kind: 'tool', method: 'tools/call', server: 'docs' } }),
    ];
    attachToolDefinitions(calls, [offered], inventory);
    expect(calls.map((t) => t.definition?.description)).toEqual(['offered', 'listed', 'own']);
    expect(inventory.list()[0]?.tools.map((t) => t.name)).toEqual(['read', 'other']);
  });

  it('an MCP call with no server takes the one server that offers its tool, else one warning', () => {
    const warnings = new WarningSink();
    const ctx = createContext('s', { warnings, file: 'f.json' });
    const inventory = new Inventory();
    inventory.addTool('docs', { name: 'read' });
    const calls = [toolCall('t1', 1, 'read', { mcp: { kind: 'tool', method: 'tools/call' } }), toolCall('t2', 2, 'nowhere', { mcp: { kind: 'tool', method: 'tools/call' } })];
    nameUnnamedServers(calls, inventory, new ServerNames(ctx), new Map(), ctx);
    expect(calls.map((t) => t.mcp?.server)).toEqual(['docs', undefined]);
    expect(warnings.list.map((w) => [w.code, w.span, w.file])).toEqual([['mcp-server-unknown', 't2', 'f.json']]);
  });

  it('a tool call without an id takes the latest earlier unused request, the one with its arguments first', () => {
    const calls = [llm('l1', 0, [{ id: 'c1', name: 'search', arguments: { q: 'a' } }, { id: 'c2', name: 'search', arguments: { q: 'b' } }]), llm('l2', 10, [{ id: 'c3', name: 'search' }])];
    const byName = toolRequests(calls);
    expect(byName.get('search')?.map((r) => r.id)).toEqual(['c1', 'c2', 'c3']);
    expect(latestUnused(byName.get('search')!, 5, new Set())?.id).toBe('c1');
    const tools = [toolCall('t1', 5, 'search', { arguments: { q: 'b' } }), toolCall('t2', 6, 'search'), toolCall('t3', 20, 'search'), toolCall('t4', 21, 'search', { toolCallId: 'own' })];
    fillToolCallIds(tools, groupBy(calls, (c) => c.agentCallId));
    expect(tools.map((t) => t.toolCallId)).toEqual(['c2', 'c1', 'c3', 'own']);
  });
});

describe('step 7: conversation ends and the session', () => {
  const turn = (n: string, start: number, user: string, answer: string, more: Partial<LLMCall> = {}): LLMCall =>
    ({
      kind: 'LLMCall', id: n, traceId: T, name: n, startTime: start, endTime: start + 1, status: 'ok', attributes: {}, toolDefinitions: [],
      inputMessages: [{ role: 'user', content: user }], outputMessages: [{ role: 'assistant', content: answer }], ...more,
    }) as unknown as LLMCall;

  it('an agent call\'s user input is its first LLM call\'s, its final response its last answer', () => {
    const calls = [turn('l1', 1, 'first question', 'thinking', { agentCallId: 'a' }), turn('l2', 2, 'again', 'the answer', { agentCallId: 'a' })];
    const agentCall = { kind: 'AgentCall', id: 'a' } as never as Parameters<typeof setConversationEnds>[0][number];
    const lonely = { kind: 'AgentCall', id: 'b' } as never as Parameters<typeof setConversationEnds>[0][number];
    setConversationEnds([agentCall, lonely], groupBy(calls, (c) => c.agentCallId));
    expect([agentCall.userInput, agentCall.finalResponse]).toEqual(['first question', 'the answer']);
    expect(Object.keys(lonely)).toEqual(['kind', 'id']);
  });

  it('the session spans its elements, lists its traces in first-seen order and takes the first span\'s resource', () => {
    const other = 'beef0000beef0000beef0000beef0000';
    const spans = [span('1', chat, 0, undefined, { resource: { 'service.name': 'svc' } }), span('2', chat, 50, undefined, { traceId: other })];
    const llmCalls = [turn('l1', 5, 'q', 'a')];
    const s = assembleSession(createContext('s', { warnings: new WarningSink() }), { masCalls: [], agentCalls: [], taskCalls: [], llmCalls, toolCalls: [], mcpServers: [] }, spans, spans);
    expect([s.startTime, s.endTime, s.serviceName, s.traceIds, s.userInput, s.finalResponse, s.attributes]).toEqual([5, 6, 'svc', [T, other], 'q', 'a', { 'service.name': 'svc' }]);
    const empty = assembleSession(createContext('e', { warnings: new WarningSink() }), { masCalls: [], agentCalls: [], taskCalls: [], llmCalls: [], toolCalls: [], mcpServers: [] }, spans, spans);
    expect([empty.startTime, empty.endTime, 'attributes' in empty]).toEqual([0, 60, true]);
  });
});
