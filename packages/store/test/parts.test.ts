/**
 * The reconciliation of a session written in parts (ingest/parts.ts), through the merge rules' oracle: implicit MAS
 * calls against explicit ones and against each other, missing parent spans found among the stored calls or not.
 */
import { describe, expect, it } from 'vitest';
import type { AgentCall, Call, LLMCall, MASCall, Session, TaskCall, ToolCall } from '@mce/core';
import { normaliseSession, WarningSink, type SpanRecord } from '../../ingest/src/index.js';
import { mergeSessions, planSessionWrite } from '../../ingest/src/merge.js';
import { bareSession, tripInParts } from '../src/conformance/sessions.js';

const MISSING = 'mce.missing_parent_span_id';
const T1 = '1111111111111111aaaaaaaaaaaaaaaa';
const T2 = '2222222222222222bbbbbbbbbbbbbbbb';

/** The calls of a session by id. */
const calls = (s: Session): Map<string, Call> =>
  new Map([...s.masCalls, ...s.agentCalls, ...s.taskCalls, ...s.llmCalls, ...s.toolCalls].map((c) => [c.id, c]));

function llm(id: string, start: number, extra: Partial<LLMCall> = {}): LLMCall {
  return {
    kind: 'LLMCall', id, traceId: T1, name: 'chat', startTime: start, endTime: start + 5, status: 'ok', attributes: { 'gen_ai.operation.name': 'chat' },
    operation: 'chat', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 2 },
    inputMessages: [], outputMessages: [], finishReasons: [], toolDefinitions: [], ...extra,
  };
}
function implicitMas(traceId: string, start: number, end: number, extra: Partial<MASCall> = {}): MASCall {
  return { kind: 'MASCall', id: traceId, traceId, name: 'root', startTime: start, endTime: end, status: 'unset', ...extra };
}
function agent(id: string, start: number, end: number, extra: Partial<AgentCall> = {}): AgentCall {
  return { kind: 'AgentCall', id, traceId: T1, name: `invoke_agent ${id}`, startTime: start, endTime: end, status: 'ok', agentName: id, attributes: {}, ...extra };
}
const part = (start: number, end: number, extra: Partial<Session>) => bareSession('s', start, { endTime: end, traceIds: [T1], ...extra });

describe('a session written in parts: implicit against explicit MAS calls', () => {
  const { withRoot, withoutRoot } = tripInParts('trip', 1000);
  const expected = (): Session => {
    const c = calls(withRoot);
    const w = c.get('trip-w') as MASCall;
    const a = c.get('trip-a') as AgentCall;
    const l2 = withoutRoot.llmCalls[0]!;
    const k = withoutRoot.taskCalls[0]!;
    const t = withoutRoot.toolCalls[0]!;
    const links = { agentCallId: 'trip-a', masCallId: 'trip-w' };
    return {
      ...withRoot,
      finalResponse: 'second answer', // of the LLM call that ends last, in the other part
      masCalls: [{ ...w, finalResponse: 'second answer' }],
      agentCalls: [{ ...a, finalResponse: 'second answer' }],
      llmCalls: [withRoot.llmCalls[0]!, { ...l2, parentId: 'trip-a', ...links, attributes: { 'gen_ai.operation.name': 'chat' } }],
      taskCalls: [{ ...k, parentId: 'trip-a', ...links, attributes: { 'traceloop.span.kind': 'task' } }],
      toolCalls: [{ ...t, ...links }],
    };
  };
  const sorted = (s: Session) => ({ ...s, llmCalls: [...s.llmCalls].sort((a, b) => a.startTime - b.startTime) });

  it('the part without the workflow span, written second: its implicit MAS call is dropped, its calls linked to the stored ones', () => {
    const write = planSessionWrite(withRoot, withoutRoot);
    expect(write.removed).toEqual([]);
    expect(write.session.masCalls.map((m) => m.id)).toEqual(['trip-w']); // not the phantom; the stored one, its response changed
    expect(sorted(mergeSessions(withRoot, withoutRoot))).toStrictEqual(sorted(expected()));
  });

  it('the part without the workflow span, written first: the stored implicit MAS call is removed, the stored calls linked', () => {
    const write = planSessionWrite(withoutRoot, withRoot);
    expect(write.removed).toEqual(['f00df00df00df00df00df00df00df00d']);
    // The stored calls whose links changed are written again with the part.
    expect([...calls(write.session).keys()].sort()).toEqual(['trip-a', 'trip-k', 'trip-l1', 'trip-l2', 'trip-t', 'trip-w']);
    const merged = mergeSessions(withoutRoot, withRoot);
    expect(merged.masCalls.map((m) => m.id)).toEqual(['trip-w']);
    expect(sorted(merged)).toStrictEqual(sorted({ ...expected(), traceIds: withoutRoot.traceIds }));
    // The session's times no longer hold the dropped call's window (it is within them here: they are the calls').
    expect([merged.startTime, merged.endTime]).toEqual([1000, 1100]);
  });

  it('a stored implicit MAS call that widened the session is dropped with its window', () => {
    const wide = implicitMas(T1, 0, 500);
    const stored = part(0, 500, { masCalls: [wide], llmCalls: [llm('l1', 100, { masCallId: T1 })] });
    const incoming = part(90, 200, { masCalls: [{ ...implicitMas(T1, 90, 200), id: 'w' }], llmCalls: [llm('l2', 150, { masCallId: 'w' })] });
    const merged = mergeSessions(stored, incoming);
    expect(merged.masCalls.map((m) => m.id)).toEqual(['w']);
    expect(merged.llmCalls.map((c) => [c.id, c.masCallId])).toEqual([['l1', 'w'], ['l2', 'w']]);
    expect([merged.startTime, merged.endTime]).toEqual([90, 200]);
  });

  it('a MAS call of another trace is enough: a session with a workflow span has no implicit MAS call', () => {
    const stored = part(0, 100, { masCalls: [implicitMas(T2, 0, 100, { traceId: T2 })], llmCalls: [llm('l1', 10, { traceId: T2, masCallId: T2 })] });
    const incoming = part(0, 100, { masCalls: [{ ...implicitMas(T1, 0, 100), id: 'w' }] });
    const merged = mergeSessions(stored, incoming);
    expect(merged.masCalls.map((m) => m.id)).toEqual(['w']);
    expect(merged.llmCalls[0]?.masCallId).toBe('w'); // the window rule over all MAS calls, as at once
  });
});

describe('a session written in parts: two implicit MAS calls of one trace', () => {
  // The part holding the trace's root span (an agent), and a part whose first span of the trace names that root as
  // its missing parent.
  const rootAgent = agent('a1', 10, 100, { masCallId: T1, status: 'error' });
  const withRoot = part(10, 100, { masCalls: [implicitMas(T1, 10, 100, { name: 'invoke_agent a1', status: 'error' })], agentCalls: [rootAgent] });
  const child = llm('l1', 20, { masCallId: T1, attributes: { 'gen_ai.operation.name': 'chat', [MISSING]: 'a1' } });
  const orphaned = part(20, 120, { masCalls: [implicitMas(T1, 20, 120, { name: 'chat', attributes: { [MISSING]: 'a1' } })], llmCalls: [child] });
  const joined: MASCall = { ...implicitMas(T1, 10, 120, { name: 'invoke_agent a1', status: 'error' }) };

  it('are one call whatever the order: the union of the windows, name and status of the part with the real root', () => {
    for (const [a, b] of [[withRoot, orphaned], [orphaned, withRoot]] as const) {
      const merged = mergeSessions(a, b);
      expect(merged.masCalls).toStrictEqual([joined]);
      expect(merged.llmCalls).toStrictEqual([{ ...child, parentId: 'a1', agentCallId: 'a1', attributes: { 'gen_ai.operation.name': 'chat' } }]);
      expect(merged.agentCalls).toStrictEqual([rootAgent]);
      expect(planSessionWrite(a, b).removed).toEqual([]);
    }
  });

  it('the real root wins even when its part starts later (clocks of two services)', () => {
    const early = part(5, 50, { masCalls: [implicitMas(T1, 5, 50, { name: 'chat', attributes: { [MISSING]: 'a1' } })] });
    expect(mergeSessions(withRoot, early).masCalls).toStrictEqual([{ ...joined, startTime: 5, endTime: 100 }]);
    expect(mergeSessions(early, withRoot).masCalls).toStrictEqual([{ ...joined, startTime: 5, endTime: 100 }]);
  });

  it('without a real root in either part, the part that starts first names it', () => {
    const other = part(30, 150, { masCalls: [implicitMas(T1, 30, 150, { name: 'tool', attributes: { [MISSING]: 'zz' } })] });
    const named = { ...implicitMas(T1, 20, 150, { name: 'chat', attributes: { [MISSING]: 'a1' } }) };
    expect(mergeSessions(orphaned, other).masCalls).toStrictEqual([named]);
    expect(mergeSessions(other, orphaned).masCalls).toStrictEqual([named]);
  });

  it('parts that start together: the part written first names it; an empty mark names no span (a real root)', () => {
    const first = part(20, 60, { masCalls: [implicitMas(T1, 20, 60, { name: 'chat', attributes: { [MISSING]: 'x1' } })] });
    const second = part(20, 90, { masCalls: [implicitMas(T1, 20, 90, { name: 'tool', attributes: { [MISSING]: 'x2' } })] });
    expect(mergeSessions(first, second).masCalls).toStrictEqual([implicitMas(T1, 20, 90, { name: 'chat', attributes: { [MISSING]: 'x1' } })]);
    expect(mergeSessions(second, first).masCalls).toStrictEqual([implicitMas(T1, 20, 90, { name: 'tool', attributes: { [MISSING]: 'x2' } })]);
    const unmarked = part(30, 90, { masCalls: [implicitMas(T1, 30, 90, { name: 'root', attributes: { [MISSING]: '' } })] });
    expect(mergeSessions(first, unmarked).masCalls).toStrictEqual([implicitMas(T1, 20, 90, { name: 'root', attributes: { [MISSING]: '' } })]);
  });

  it('implicit MAS calls of different traces stay apart', () => {
    const second = part(200, 300, { traceIds: [T2], masCalls: [implicitMas(T2, 200, 300)] });
    expect(mergeSessions(withRoot, second).masCalls.map((m) => m.id)).toEqual([T1, T2]);
  });
});

describe('a session written in parts: missing parent spans', () => {
  const w: MASCall = { kind: 'MASCall', id: 'w', traceId: T1, name: 'wf', startTime: 0, endTime: 1000, status: 'ok', attributes: {} };
  const researcher = agent('a1', 100, 500, { parentId: 'w', masCallId: 'w', attributes: { 'ioa_observe.association.properties.checkpoint_ns': 'researcher:1' } });
  const stored = part(0, 1000, { masCalls: [w], agentCalls: [researcher] });

  it('found among the stored calls: parent, agent and MAS call of the call and of the calls below it', () => {
    const task: TaskCall = {
      kind: 'TaskCall', id: 'k', traceId: T1, name: 'step.task', startTime: 110, endTime: 300, status: 'ok', taskName: 'step', attributes: { [MISSING]: 'a1' },
    };
    const below = llm('l', 120, { parentId: 'k' });
    const merged = mergeSessions(stored, part(110, 300, { taskCalls: [task], llmCalls: [below] }));
    expect(merged.taskCalls).toStrictEqual([{ ...task, parentId: 'a1', agentCallId: 'a1', masCallId: 'w', attributes: {} }]);
    expect(merged.llmCalls).toStrictEqual([{ ...below, agentCallId: 'a1', masCallId: 'w' }]);
  });

  it('the parent arriving in a later part links the stored calls that name it', () => {
    const early = llm('l', 120, { attributes: { [MISSING]: 'a1' } });
    const merged = mergeSessions(part(120, 125, { llmCalls: [early] }), stored);
    expect(merged.llmCalls).toStrictEqual([{ ...early, parentId: 'a1', agentCallId: 'a1', masCallId: 'w', attributes: {} }]);
    expect(merged.masCalls).toStrictEqual([w]);
  });

  it('not a call of the session (a plumbing span of another part): the mark stays, the fallbacks decide', () => {
    const attrs = { 'ioa_observe.association.properties.checkpoint_ns': 'researcher:1', [MISSING]: 'http-span' };
    const byNamespace = llm('l1', 150, { attributes: attrs });
    const unmatched = llm('l2', 600, { attributes: { [MISSING]: 'http-span' } });
    const merged = mergeSessions(stored, part(150, 605, { llmCalls: [byNamespace, unmatched] }));
    // The checkpoint namespace finds the agent of the other part; the MAS window rule the workflow. No parent.
    expect(merged.llmCalls).toStrictEqual([
      { ...byNamespace, agentCallId: 'a1', masCallId: 'w' },
      { ...unmatched, masCallId: 'w' },
    ]);
  });

  it('a cycle closed by two parts is cut: the call whose link would close it keeps its mark', () => {
    const x = llm('x', 10, { attributes: { [MISSING]: 'y' } });
    const y: ToolCall = { kind: 'ToolCall', id: 'y', name: 'tool', startTime: 11, endTime: 12, status: 'ok', toolName: 't', attributes: { [MISSING]: 'x' } };
    const merged = mergeSessions(part(10, 15, { llmCalls: [x] }), part(11, 12, { toolCalls: [y] }));
    const linked = [merged.llmCalls[0]!.parentId, merged.toolCalls[0]!.parentId];
    expect(linked.filter((p) => p !== undefined)).toHaveLength(1);
    // The walk starts at the stored call and closes at the part's: x is linked (its mark removed), y stays as it came.
    expect(merged.llmCalls).toStrictEqual([{ ...x, parentId: 'y', attributes: {} }]);
    expect(merged.toolCalls).toStrictEqual([y]);
  });

  it('an agent a call leaves takes its user input and final response again, from the LLM calls it keeps', () => {
    // Stored: the LLM call was given to the planner by name; its real parent, the helper, arrives in the part.
    const l = llm('l', 100, {
      agentCallId: 'a1', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.agent.name': 'planner', [MISSING]: 'a2' },
      inputMessages: [{ role: 'user', content: 'q?' }], outputMessages: [{ role: 'assistant', content: 'ans.' }],
    });
    const planner = agent('a1', 0, 1000, { agentName: 'planner', userInput: 'q?', finalResponse: 'ans.' });
    const helper = agent('a2', 50, 300, { agentName: 'helper' });
    const merged = mergeSessions(part(0, 1000, { agentCalls: [planner], llmCalls: [l] }), part(50, 300, { agentCalls: [helper] }));
    expect(merged.llmCalls).toStrictEqual([{ ...l, parentId: 'a2', agentCallId: 'a2', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.agent.name': 'planner' } }]);
    expect(merged.agentCalls).toStrictEqual([agent('a1', 0, 1000, { agentName: 'planner' }), { ...helper, userInput: 'q?', finalResponse: 'ans.' }]);
  });
});

describe('a session written in parts: links, what is written, and the header', () => {
  it('a call is never its own agent or MAS call', () => {
    const w: MASCall = { kind: 'MASCall', id: 'w', traceId: T1, name: 'wf', startTime: 0, endTime: 1000, status: 'ok', masCallId: 'w' };
    const a1 = agent('a1', 100, 500, { parentId: 'w', agentCallId: 'a1' });
    const merged = mergeSessions(part(0, 10, { llmCalls: [llm('l', 0)] }), part(0, 1000, { masCalls: [w], agentCalls: [a1] }));
    expect(merged.masCalls).toStrictEqual([{ kind: 'MASCall', id: 'w', traceId: T1, name: 'wf', startTime: 0, endTime: 1000, status: 'ok' }]);
    expect(merged.agentCalls).toStrictEqual([agent('a1', 100, 500, { parentId: 'w', masCallId: 'w' })]);
  });

  it('of MAS calls that start together, a call without a MAS ancestor takes the shorter (first in start order, as read at once)', () => {
    const long: MASCall = { kind: 'MASCall', id: 'long', traceId: T1, name: 'wf', startTime: 0, endTime: 100, status: 'ok' };
    const short: MASCall = { ...long, id: 'short', endTime: 50 };
    const merged = mergeSessions(part(0, 100, { masCalls: [long, short] }), part(0, 5, { llmCalls: [llm('l', 0)] }));
    expect(merged.llmCalls.map((c) => c.masCallId)).toEqual(['short']);
  });

  it('a part is written with the stored calls it changed only', () => {
    const stored = part(0, 100, { masCalls: [implicitMas(T1, 0, 100)], llmCalls: [llm('l1', 0, { masCallId: T1 })] });
    const other = part(200, 300, {
      traceIds: [T2], masCalls: [implicitMas(T2, 200, 300)], llmCalls: [llm('l2', 250, { traceId: T2, masCallId: T2 })],
    });
    const write = planSessionWrite(stored, other);
    expect(write.session).toStrictEqual(other);
    expect(write.removed).toEqual([]);
  });

  it('parts that start (end) together: the user input (final response) of the part written first', () => {
    const first = part(0, 100, { userInput: 'first question', finalResponse: 'first answer' });
    const second = part(0, 100, { userInput: 'second question', finalResponse: 'second answer' });
    expect([mergeSessions(first, second).userInput, mergeSessions(first, second).finalResponse]).toEqual(['first question', 'first answer']);
    expect([mergeSessions(second, first).userInput, mergeSessions(second, first).finalResponse]).toEqual(['second question', 'second answer']);
  });

  it('a stored field that is empty (an empty object included) takes the part\'s', () => {
    const merged = mergeSessions(part(0, 100, { attributes: {}, serviceName: '' }), part(0, 100, { attributes: { 'service.name': 'svc' }, serviceName: 'svc' }));
    expect([merged.attributes, merged.serviceName]).toEqual([{ 'service.name': 'svc' }, 'svc']);
    const kept = mergeSessions(part(0, 100, { attributes: { a: 1 } }), part(0, 100, { attributes: { b: 2 } }));
    expect(kept.attributes).toEqual({ a: 1 });
  });
});

describe('a session written in parts: nested workflows, conversation ends, idempotence', () => {
  const w: MASCall = { kind: 'MASCall', id: 'w', traceId: T1, name: 'LangGraph.workflow', startTime: 0, endTime: 1000, status: 'ok', attributes: {} };
  const a1 = agent('a1', 100, 500, { parentId: 'w', masCallId: 'w' });
  const inner: MASCall = {
    kind: 'MASCall', id: 'q', traceId: T1, name: 'RetrieverQueryEngine.workflow', startTime: 110, endTime: 300, status: 'ok', input: 'q?', output: 'a.',
    attributes: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'RetrieverQueryEngine', [MISSING]: 'a1' }, workflowName: 'RetrieverQueryEngine',
    userInput: 'what?', finalResponse: 'that.',
  };
  const below = llm('l', 120, { parentId: 'q', masCallId: 'q', inputMessages: [{ role: 'user', content: 'what?' }], outputMessages: [{ role: 'assistant', content: 'that.' }] });

  it('a workflow span below an agent of another part is a task, while the session keeps its MAS call', () => {
    const merged = mergeSessions(part(0, 1000, { masCalls: [w], agentCalls: [a1] }), part(110, 300, { masCalls: [inner], llmCalls: [below] }));
    expect(merged.masCalls.map((m) => m.id)).toEqual(['w']);
    expect(merged.taskCalls).toStrictEqual([
      {
        kind: 'TaskCall', id: 'q', traceId: T1, name: 'RetrieverQueryEngine.workflow', startTime: 110, endTime: 300, status: 'ok', input: 'q?', output: 'a.',
        attributes: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'RetrieverQueryEngine' }, taskName: 'RetrieverQueryEngine',
        parentId: 'a1', agentCallId: 'a1', masCallId: 'w',
      },
    ]);
    expect(merged.llmCalls.map((c) => [c.agentCallId, c.masCallId])).toEqual([['a1', 'w']]);
    // The agent's conversation now holds that LLM call; the MAS call's too.
    expect(merged.agentCalls[0]).toMatchObject({ userInput: 'what?', finalResponse: 'that.' });
    expect(merged.masCalls[0]).toMatchObject({ userInput: 'what?', finalResponse: 'that.' });
  });

  it('a workflow span below an agent of another part is a task, also when that agent has no MAS call above it', () => {
    const root = agent('a1', 100, 500); // the root of its own trace, as LangGraph agent spans are
    const merged = mergeSessions(part(0, 1000, { masCalls: [w], agentCalls: [root] }), part(110, 300, { masCalls: [inner], llmCalls: [below] }));
    expect(merged.masCalls.map((m) => m.id)).toEqual(['w']);
    expect(merged.taskCalls.map((t) => [t.id, t.taskName, t.parentId, t.agentCallId, t.masCallId])).toEqual([['q', 'RetrieverQueryEngine', 'a1', 'a1', 'w']]);
  });

  it('without a MAS call of its own to keep, the session keeps the workflow as its MAS call', () => {
    const merged = mergeSessions(part(100, 500, { agentCalls: [{ ...a1, parentId: undefined, masCallId: undefined } as AgentCall] }), part(110, 300, { masCalls: [inner], llmCalls: [below] }));
    expect(merged.masCalls.map((m) => [m.id, m.parentId])).toEqual([['q', 'a1']]);
    expect(merged.taskCalls).toEqual([]);
  });

  it('a part written again changes nothing, and a hand-written session merges as before', () => {
    const { withRoot, withoutRoot } = tripInParts('again', 5000);
    for (const s of [withRoot, withoutRoot]) {
      expect(mergeSessions(s, s)).toStrictEqual(s);
      expect(planSessionWrite(s, s).session).toStrictEqual(s);
    }
    const once = mergeSessions(withRoot, withoutRoot);
    expect(mergeSessions(once, withoutRoot)).toStrictEqual(once);
    expect(mergeSessions(once, withRoot)).toStrictEqual(once);
  });
});

describe('a session written in parts: one call in two spans (an LLM span in an LLM span, a tool span in a tool span of the same tool)', () => {
  // An agent with a LangChain LLM span around the OpenAI client's span, and a tool span around the MCP server's span of
  // the same tool, which runs an LLM call of its own. The inner spans (the provider client's, the MCP server's) are
  // exported by another process: they reach the store in another part, and name the outer spans as missing parents.
  let clock = 0;
  const span = (id: string, attributes: Record<string, unknown>, extra: Partial<SpanRecord> = {}): SpanRecord => ({
    traceId: T1, spanId: id, name: String(attributes.name ?? id), kind: 'internal', startTime: 1000 + (clock += 10), endTime: 0, status: { code: 'unset' },
    attributes, resource: { 'service.name': 'svc' }, events: [], ...extra,
  });
  const at = (s: SpanRecord, end: number): SpanRecord => ({ ...s, endTime: s.startTime + end });
  const agentSpan = at(span('a', { name: 'invoke_agent planner', 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' }), 900);
  const outerLlm = at(span('l1', {
    name: 'ChatOpenAI.chat', 'llm.request.type': 'chat', 'gen_ai.system': 'Langchain', 'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.prompt_tokens': 1000, 'gen_ai.usage.completion_tokens': 50, 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'Weather in Paris?',
  }, { parentSpanId: 'a' }), 40);
  const innerLlm = at(span('l2', {
    name: 'openai.chat', 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 50, 'gen_ai.usage.cache_read.input_tokens': 800,
    'gen_ai.output.messages': '[{"role":"assistant","content":"Let me look."}]', 'gen_ai.response.finish_reasons': ['tool_calls'],
  }, { parentSpanId: 'l1' }), 25);
  const outerTool = at(span('t1', {
    name: 'execute_tool get_weather', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1',
    'gen_ai.tool.call.arguments': '{"city":"Paris"}',
  }, { parentSpanId: 'a' }), 300);
  const innerTool = at(span('t2', {
    name: 'tools/call get_weather', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.result': '{"sky":"clear"}',
    'error.type': 'partial_result',
  }, { parentSpanId: 't1', kind: 'server', resource: { 'service.name': 'weather-mcp' } }), 280);
  const serverLlm = at(span('l3', {
    name: 'chat gpt-4o-mini', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 20, 'gen_ai.usage.output_tokens': 5,
    'gen_ai.output.messages': '[{"role":"assistant","content":"Clear skies in Paris."}]',
  }, { parentSpanId: 't2' }), 100);
  const read = (spans: SpanRecord[]) => normaliseSession('s', spans, { warnings: new WarningSink() });
  const whole = read([agentSpan, outerLlm, innerLlm, outerTool, innerTool, serverLlm]);
  const outerPart = read([agentSpan, outerLlm, outerTool]);
  const innerPart = read([innerLlm, innerTool, serverLlm]);
  const byId = (a: Call, b: Call) => (a.id < b.id ? -1 : 1);
  const unordered = (s: Session): Session => ({
    ...s, masCalls: [...s.masCalls].sort(byId), agentCalls: [...s.agentCalls].sort(byId), taskCalls: [...s.taskCalls].sort(byId),
    llmCalls: [...s.llmCalls].sort(byId), toolCalls: [...s.toolCalls].sort(byId),
  });
  const tokens = (s: Session) => s.llmCalls.reduce((n, c) => n + c.usage.totalTokens, 0);

  it('the parts as read: two calls of each, the inner ones marked with the outer span', () => {
    expect(whole.llmCalls.map((c) => c.id)).toEqual(['l1', 'l3']);
    expect(whole.toolCalls.map((c) => c.id)).toEqual(['t1']);
    expect(tokens(outerPart) + tokens(innerPart)).toBe(1050 + 1050 + 25); // the model call counted twice
    expect(innerPart.llmCalls.map((c) => [c.id, c.attributes?.[MISSING]])).toEqual([['l2', 'l1'], ['l3', undefined]]);
    expect(innerPart.toolCalls.map((c) => [c.id, c.attributes?.[MISSING]])).toEqual([['t2', 't1']]);
  });

  it('are folded into the outer calls as read at once, whichever part comes first', () => {
    for (const [first, second] of [[outerPart, innerPart], [innerPart, outerPart]] as const) {
      const merged = mergeSessions(first, second);
      expect(unordered(merged)).toStrictEqual(unordered(whole));
      expect(tokens(merged)).toBe(1075);
      const llm = merged.llmCalls.find((c) => c.id === 'l1')!;
      expect(llm).toMatchObject({ requestModel: 'gpt-4o', responseModel: 'gpt-4o-2024-08-06', provider: 'openai', finishReasons: ['tool_calls'], parentId: 'a', agentCallId: 'a' });
      expect(llm.usage).toEqual({ inputTokens: 1000, outputTokens: 50, cacheReadTokens: 800, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 1050 });
      expect(llm.inputMessages).toEqual([{ role: 'user', content: 'Weather in Paris?' }]);
      expect(llm.outputMessages).toEqual([{ role: 'assistant', content: 'Let me look.' }]);
      expect(merged.toolCalls).toHaveLength(1);
      expect(merged.toolCalls[0]).toMatchObject({
        id: 't1', toolName: 'get_weather', toolCallId: 'call_1', arguments: { city: 'Paris' }, result: { sky: 'clear' }, status: 'error',
        error: { type: 'partial_result' }, mcp: { kind: 'tool', method: 'tools/call', server: 'weather-mcp' }, parentId: 'a', agentCallId: 'a',
      });
      // The MCP server's own LLM call was below the inner tool span: it is below the call that took it.
      expect(merged.llmCalls.find((c) => c.id === 'l3')).toMatchObject({ parentId: 't1', agentCallId: 'a', masCallId: T1 });
      expect(merged.agentCalls[0]).toMatchObject({ userInput: 'Weather in Paris?', finalResponse: 'Clear skies in Paris.' });
      expect(merged.mcpServers).toEqual([{ name: 'weather-mcp', tools: [{ name: 'get_weather' }], resources: [], prompts: [] }]);
    }
  });

  it('a stored inner call is removed; the part written again changes nothing', () => {
    expect(planSessionWrite(outerPart, innerPart).removed).toEqual([]);
    expect(planSessionWrite(innerPart, outerPart).removed.sort()).toEqual(['l2', 't2']);
    const once = mergeSessions(outerPart, innerPart);
    expect(mergeSessions(once, innerPart)).toStrictEqual(once);
    const write = planSessionWrite(once, innerPart);
    expect(write.removed).toEqual([]);
    expect(allIds(write.session)).not.toContain('l2');
  });

  it('the inner call keeps the fields it recorded alone: an outer call without usage takes the inner one\'s tokens', () => {
    const bare = { ...outerLlm, attributes: { name: 'ChatOpenAI.chat', 'llm.request.type': 'chat', 'gen_ai.request.model': 'gpt-4o' } };
    const merged = mergeSessions(read([agentSpan, bare]), innerPart);
    expect(merged.llmCalls.find((c) => c.id === 'l1')?.usage).toEqual({
      inputTokens: 1000, outputTokens: 50, cacheReadTokens: 800, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 1050,
    });
    expect(unordered(merged)).toStrictEqual(unordered(read([agentSpan, bare, innerLlm, innerTool, serverLlm])));
  });

  it('three spans of one tool call (execute_tool, MCP client, MCP server): the inner two of another part as one call', () => {
    const client = at(span('t2', { name: 'tools/call get_weather', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather' }, { parentSpanId: 't1', kind: 'client' }), 290);
    const server = { ...innerTool, spanId: 't3', parentSpanId: 't2', startTime: client.startTime + 1, endTime: client.endTime - 1 };
    const whole3 = read([agentSpan, outerLlm, outerTool, client, server]);
    const inner = read([client, server]);
    expect(inner.toolCalls.map((c) => [c.id, c.result, c.mcp?.server])).toEqual([['t2', { sky: 'clear' }, 'weather-mcp']]);
    for (const [first, second] of [[outerPart, inner], [inner, outerPart]] as const) {
      const merged = mergeSessions(first, second);
      expect(unordered(merged)).toStrictEqual(unordered(whole3));
      // The result the server span recorded, under the outer span's id and arguments.
      expect(merged.toolCalls.map((c) => [c.id, c.arguments, c.result, c.mcp?.server, c.status])).toEqual([['t1', { city: 'Paris' }, { sky: 'clear' }, 'weather-mcp', 'error']]);
    }
    // The middle span folded into the outer one in its own part is no call of the session (like a plumbing span): the
    // server span of a third part that names it keeps its mark and stays a call of its own.
    const withClient = read([agentSpan, outerLlm, outerTool, client]);
    const merged = mergeSessions(withClient, read([server]));
    expect(merged.toolCalls.map((c) => [c.id, c.parentId, c.attributes?.[MISSING]])).toEqual([['t1', 'a', undefined], ['t3', undefined, 't2']]);
  });

  it('pairs the normaliser keeps apart stay two calls, linked: a tool of another name, an LLM call in a tool call', () => {
    const otherTool = { ...innerTool, attributes: { ...innerTool.attributes, 'gen_ai.tool.name': 'get_forecast', name: 'tools/call get_forecast' }, name: 'tools/call get_forecast' };
    const llmInTool = { ...innerLlm, parentSpanId: 't1' };
    const merged = mergeSessions(outerPart, read([otherTool, llmInTool]));
    expect(merged.toolCalls.map((c) => [c.id, c.parentId, c.toolName])).toEqual([['t1', 'a', 'get_weather'], ['t2', 't1', 'get_forecast']]);
    expect(merged.llmCalls.map((c) => [c.id, c.parentId])).toEqual([['l1', 'a'], ['l2', 't1']]);
    expect(unordered(merged)).toStrictEqual(unordered(read([agentSpan, outerLlm, outerTool, otherTool, llmInTool])));
  });
});

const allIds = (s: Session) => [...calls(s).keys()];
