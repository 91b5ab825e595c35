/**
 * The store conformance suite: the same behaviour asserted against every adapter. `open` must return a fresh,
 * empty, initialised store (its own file / schema / database) each time it is called.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toResultRecord } from '@mce/core';
import type { MetricResult, Session } from '@mce/core';
import { mergeSessions, type KnowledgeGraphStore, type ResultQuery, type StoreLogger } from '../index.js';
import { bareSession, bigSession, DEFINITIONS, metricResult, nestedInParts, richSession, T0_MS, toolCall, tripInParts, weatherServer } from './sessions.js';

export interface StoreFactory {
  open(logger: StoreLogger): Promise<KnowledgeGraphStore>;
  /** Rows of each table of the store (nodes of each label) in which `text` appears anywhere; absent: not checked. */
  rowsMentioning?(store: KnowledgeGraphStore, text: string): Promise<Record<string, number>>;
}

const [DURATION, TOOL_ERRORS, RELEVANCY] = DEFINITIONS as [(typeof DEFINITIONS)[0], (typeof DEFINITIONS)[0], (typeof DEFINITIONS)[0]];

/** A session's element counts as a listing gives them, counted from the session read back. */
function countsOf(session: Session) {
  return {
    masCalls: session.masCalls.length,
    agentCalls: session.agentCalls.length,
    taskCalls: session.taskCalls.length,
    llmCalls: session.llmCalls.length,
    toolCalls: session.toolCalls.length,
    mcpServers: session.mcpServers.length,
  };
}

export function storeConformance(name: string, factory: StoreFactory): void {
  describe(`${name} store conformance`, () => {
    let store: KnowledgeGraphStore;
    let warnings: { details: object; message: string }[];
    /** The ids of the results a query across sessions answers, in its order. */
    const queried = async (query?: ResultQuery) => (await store.queryMetricResults(query)).map((r) => r.result.id);

    beforeEach(async () => {
      warnings = [];
      store = await factory.open({ warn: (details, message) => warnings.push({ details, message }) });
      // Opening a new PostgreSQL schema says it created it; the tests count what the store says after that.
      warnings = warnings.filter((w) => !/did not exist: created it/.test(w.message));
    });
    afterEach(async () => {
      await store.close();
    });

    it('reads a session back exactly as written, every field of every class included', async () => {
      const session = richSession();
      await store.writeSessions([session]);
      expect(await store.getSession('sess-rich')).toStrictEqual(session);
      expect(await store.getSession('unknown')).toBeUndefined();
      // Empty attributes are read back empty, not absent.
      await store.writeSessions([bareSession('empty-attributes', 5, { attributes: {} })]);
      expect(await store.getSession('empty-attributes')).toStrictEqual(bareSession('empty-attributes', 5, { attributes: {} }));
    });

    it('reads several sessions at once, each as getSession does; unknown ids are left out', async () => {
      const rich = richSession();
      await store.writeSessions([rich, bareSession('plain', 5), bigSession('many', 120)]);
      const read = await store.getSessions(['plain', 'nope', 'sess-rich', 'many', 'plain']);
      expect([...read.keys()].sort()).toEqual(['many', 'plain', 'sess-rich']);
      expect(read.get('sess-rich')).toStrictEqual(rich);
      expect(read.get('plain')).toStrictEqual(await store.getSession('plain'));
      expect(read.get('many')).toStrictEqual(await store.getSession('many'));
      expect(await store.getSessions([])).toEqual(new Map());
      expect(await store.getSessions(['nope'])).toEqual(new Map());
    });

    it('init is idempotent (migrations already applied are skipped)', async () => {
      await store.writeSessions([bareSession('kept', 5)]);
      await store.init();
      expect(await store.sessionExists(['kept'])).toEqual(new Set(['kept']));
    });

    it('merges a session written in two parts', async () => {
      const partA = bareSession('split', 1000, {
        traceIds: ['t1'],
        userInput: 'first question',
        serviceName: '',
        toolCalls: [toolCall('split', 1, 1000), toolCall('split', 2, 1000)],
        mcpServers: [{ name: 'weather', tools: [], resources: [], prompts: [] }],
      });
      const updated = toolCall('split', 2, 1000, { status: 'error', error: { message: 'late failure' } });
      const partB = bareSession('split', 900, {
        endTime: 5000,
        traceIds: ['t2', 't1'],
        userInput: 'the question that came first',
        finalResponse: 'the last answer',
        serviceName: 'svc',
        appName: 'app',
        toolCalls: [updated, toolCall('split', 3, 1000)],
        mcpServers: [weatherServer, { name: 'files', tools: [], resources: [], prompts: [] }],
      });
      await store.writeSessions([partA]);
      await store.writeSessions([partB]);
      const expected: Session = {
        ...bareSession('split', 900),
        endTime: 5000,
        traceIds: ['t1', 't2'],
        userInput: 'the question that came first', // part B starts first (900 < 1000) and ends last (5000)
        finalResponse: 'the last answer',
        serviceName: 'svc',
        appName: 'app',
        toolCalls: [toolCall('split', 1, 1000), updated, toolCall('split', 3, 1000)],
        mcpServers: [weatherServer, { name: 'files', tools: [], resources: [], prompts: [] }],
      };
      expect(await store.getSession('split')).toStrictEqual(expected);
      expect(mergeSessions(partA, partB)).toStrictEqual(expected);

      // Both parts in one batch merge the same way.
      await store.writeSessions([{ ...partA, id: 'split2', toolCalls: [] }, { ...partB, id: 'split2', toolCalls: [] }]);
      const [summary] = await store.listSessions({ serviceName: 'svc', limit: 1, offset: 1 });
      expect(summary?.id).toBe('split2');
      expect((await store.getSession('split2'))?.traceIds).toEqual(['t1', 't2']);
    });

    it('takes the user input of the part that starts first and the final response of the part that ends last, whatever the order', async () => {
      const early = bareSession('order', 100, { endTime: 200, userInput: 'book me a flight', finalResponse: 'searching…' });
      const late = bareSession('order', 300, { endTime: 900, userInput: 'notifier: seat AF006 is full', finalResponse: 'booked AF008' });
      const expected = { userInput: 'book me a flight', finalResponse: 'booked AF008', startTime: 100, endTime: 900 };
      await store.writeSessions([early]);
      await store.writeSessions([late]);
      expect(await store.getSession('order')).toMatchObject(expected);
      await store.writeSessions([{ ...late, id: 'order2' }]);
      await store.writeSessions([{ ...early, id: 'order2' }]);
      expect(await store.getSession('order2')).toMatchObject(expected);
      // A part without one leaves the other's.
      await store.writeSessions([{ ...late, id: 'order3', finalResponse: '' }]);
      await store.writeSessions([{ ...early, id: 'order3', userInput: '' }]);
      expect(await store.getSession('order3')).toMatchObject({ userInput: 'notifier: seat AF006 is full', finalResponse: 'searching…' });
    });

    it('a call written again as another class, under another parent, is read back as written last, once, in its place', async () => {
      const agent: Session['agentCalls'][number] = {
        kind: 'AgentCall', id: 'moved-agent', name: 'invoke_agent a', startTime: 1000, endTime: 1900, status: 'ok', agentName: 'a',
      };
      const llm = (id: string, extra: Partial<Session['llmCalls'][number]> = {}): Session['llmCalls'][number] => ({
        kind: 'LLMCall', id, name: 'chat m', startTime: 1001, endTime: 1002, status: 'ok', requestModel: 'm', operation: 'chat',
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 12 },
        inputMessages: [], outputMessages: [], finishReasons: ['stop'], toolDefinitions: [], ...extra,
      });
      const first = toolCall('moved', 2, 1000, { parentId: 'moved-tool-1' });
      // Written first: the agent, an LLM call, two tool calls (positions 0, 1, 2, 3).
      const partA = bareSession('moved', 1000, { agentCalls: [agent], llmCalls: [llm('moved-early')], toolCalls: [toolCall('moved', 1, 1000), first] });
      await store.writeSessions([partA]);
      // Read again: the second tool span is an LLM call inside the agent, the LLM span a tool call (dialects learned).
      const again = llm(first.id, { startTime: first.startTime, endTime: first.endTime, parentId: 'moved-agent', agentCallId: 'moved-agent' });
      const asTool = toolCall('moved', 0, 1000, { id: 'moved-early', toolName: 'lookup' });
      const partB = bareSession('moved', 1000, { llmCalls: [again], toolCalls: [asTool] });
      await store.writeSessions([partB]);
      const back = await store.getSession('moved');
      expect(back?.toolCalls).toStrictEqual([asTool, toolCall('moved', 1, 1000)]); // in its place: before tool 1
      expect(back?.llmCalls).toStrictEqual([again]);
      expect(back?.agentCalls).toStrictEqual([agent]);
      expect(mergeSessions(partA, partB)).toStrictEqual(back);
    });

    it('reconciles a session written in parts as mergeSessions does: links across the parts, no phantom MAS call', async () => {
      const { withRoot, withoutRoot } = tripInParts('trip');
      const check = async (id: string, first: Session, second: Session) => {
        await store.writeSessions([{ ...first, id }]);
        await store.writeSessions([{ ...second, id }]);
        const back = await store.getSession(id);
        expect(back).toStrictEqual(mergeSessions({ ...first, id }, { ...second, id }));
        expect(back?.masCalls.map((m) => m.id)).toEqual(['trip-w']);
        expect(back?.toolCalls.map((c) => [c.parentId, c.agentCallId, c.masCallId])).toEqual([['trip-k', 'trip-a', 'trip-w']]);
        expect(back?.taskCalls.map((c) => [c.parentId, c.agentCallId, c.masCallId, c.attributes])).toEqual([
          ['trip-a', 'trip-a', 'trip-w', { 'traceloop.span.kind': 'task' }],
        ]);
        const [summary] = await store.listSessions({ from: back!.startTime, to: back!.startTime });
        expect(summary?.counts).toEqual({ masCalls: 1, agentCalls: 1, taskCalls: 1, llmCalls: 2, toolCalls: 1, mcpServers: 0 });
      };
      await check('trip-root-first', withRoot, withoutRoot);
      await check('trip-root-last', withoutRoot, withRoot); // the stored implicit MAS call is removed
      // Both parts in one batch reconcile the same way.
      await store.writeSessions([{ ...withoutRoot, id: 'trip-batch' }, { ...withRoot, id: 'trip-batch' }]);
      expect(await store.getSession('trip-batch')).toStrictEqual({ ...(await store.getSession('trip-root-last')), id: 'trip-batch' });
    });

    it('keeps the element counts a listing shows exact as a session is written in parts: calls replaced, moved and removed', async () => {
      const { withRoot, withoutRoot } = tripInParts('tally');
      const start = withoutRoot.startTime;
      const extra = toolCall('tally', 1, start);
      const files = { name: 'files', tools: [], resources: [], prompts: [] };
      // Part A: the implicit MAS call, an LLM call, a task and two tool calls, one MCP server.
      const partA: Session = { ...withoutRoot, toolCalls: [...withoutRoot.toolCalls, extra], mcpServers: [weatherServer] };
      // Part B: the workflow (the implicit MAS call is removed), the agent, an LLM call, the extra tool call written
      // again as an LLM call, the tool call replaced by a new value; the stored MCP server again and a new one.
      const asLlm = { ...withRoot.llmCalls[0]!, id: extra.id, startTime: extra.startTime, endTime: extra.endTime };
      const replaced = { ...withoutRoot.toolCalls[0]!, status: 'error' as const, error: { message: 'no room' } };
      const partB: Session = { ...withRoot, llmCalls: [...withRoot.llmCalls, asLlm], toolCalls: [replaced], mcpServers: [weatherServer, files] };
      const listed = async (id: string) => (await store.listSessions()).find((s) => s.id === id)?.counts;

      await store.writeSessions([partA]);
      expect(await listed('tally')).toEqual({ masCalls: 1, agentCalls: 0, taskCalls: 1, llmCalls: 1, toolCalls: 2, mcpServers: 1 });
      await store.writeSessions([partB]);
      const afterB = { masCalls: 1, agentCalls: 1, taskCalls: 1, llmCalls: 3, toolCalls: 1, mcpServers: 2 };
      expect(await listed('tally')).toEqual(afterB);
      expect(countsOf((await store.getSession('tally'))!)).toEqual(afterB);
      expect((await store.getSession('tally'))?.masCalls.map((m) => m.id)).toEqual(['tally-w']);
      // The same part again changes nothing; part A again moves the extra call back to the tool calls.
      await store.writeSessions([partB]);
      expect(await listed('tally')).toEqual(afterB);
      await store.writeSessions([partA]);
      expect(await listed('tally')).toEqual(countsOf((await store.getSession('tally'))!));
      expect(await listed('tally')).toMatchObject({ llmCalls: 2, toolCalls: 2 });

      // Both parts in one batch count the same as one after the other.
      await store.writeSessions([{ ...partA, id: 'tally-batch' }, { ...partB, id: 'tally-batch' }]);
      expect(await listed('tally-batch')).toEqual(afterB);
      // Results written and deleted leave the counts alone; a deleted session written anew counts from nothing.
      expect(await store.writeMetricResults(DEFINITIONS, [metricResult('tally-r', 'tally-batch', { level: 'ToolCall', measures: replaced.id, at: 1 })])).toEqual({ written: 1, rejected: [] });
      expect(await store.deleteMetricResults([{ sessionId: 'tally-batch', id: 'tally-r' }])).toBe(1);
      expect(await listed('tally-batch')).toEqual(afterB);
      expect(await store.deleteSessions(['tally-batch'])).toEqual(['tally-batch']);
      expect(await listed('tally-batch')).toBeUndefined();
      await store.writeSessions([{ ...partB, id: 'tally-batch' }]);
      expect(await listed('tally-batch')).toEqual({ masCalls: 1, agentCalls: 1, taskCalls: 0, llmCalls: 2, toolCalls: 1, mcpServers: 2 });
    });

    it('removes the results of a call that reconciling a part removes, and keeps the others', async () => {
      const { withRoot, withoutRoot } = tripInParts('gone');
      await store.writeSessions([withoutRoot, bareSession('other', T0_MS)]);
      const implicitId = withoutRoot.masCalls[0]!.id;
      const onImplicit = metricResult('on-implicit', 'gone', { level: 'MASCall', measures: implicitId, at: 1 });
      const onTool = metricResult('on-tool', 'gone', { level: 'ToolCall', measures: 'gone-t', at: 2 });
      const onSession = metricResult('on-session', 'gone', { at: 3 });
      const elsewhere = metricResult('elsewhere', 'other', { level: 'MASCall', measures: implicitId, at: 4 });
      expect(await store.writeMetricResults(DEFINITIONS, [onImplicit, onTool, onSession, elsewhere])).toEqual({ written: 4, rejected: [] });
      await store.writeSessions([withRoot]); // the explicit MAS call replaces the implicit one
      expect((await store.getSession('gone'))?.masCalls.map((m) => m.id)).toEqual(['gone-w']);
      expect((await store.getMetricResults('gone', { recursive: true })).map((r) => r.result.id)).toEqual(['on-session', 'on-tool']);
      expect((await store.getMetricResults('other', { recursive: true })).map((r) => r.result.id)).toEqual(['elsewhere']);
    });

    it('folds the inner span of another part into its outer call (LLM in LLM, tool in tool), whichever part comes first', async () => {
      const { outer, inner } = nestedInParts('nest');
      const byId = <T extends { id: string }>(list: readonly T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
      const check = async (id: string, first: Session, second: Session) => {
        await store.writeSessions([{ ...first, id }]);
        await store.writeSessions([{ ...second, id }]);
        const back = await store.getSession(id);
        expect(back).toStrictEqual(mergeSessions({ ...first, id }, { ...second, id }));
        // One model call, its tokens once (1,050, of which 800 cached, from the inner span), and the MCP server's.
        expect(byId(back!.llmCalls).map((c) => [c.id, c.parentId, c.provider, c.usage.totalTokens, c.usage.cacheReadTokens, c.outputMessages[0]?.content])).toEqual([
          ['nest-l', 'nest-a', 'openai', 1050, 800, 'Let me look.'],
          ['nest-ls', 'nest-t', undefined, 25, 0, 'Clear skies in Paris.'],
        ]);
        expect(back!.toolCalls.map((c) => [c.id, c.toolCallId, c.arguments, c.result, c.status, c.mcp?.server])).toEqual([
          ['nest-t', 'call_1', { city: 'Paris' }, { sky: 'clear' }, 'error', 'weather-mcp'],
        ]);
        expect(back!.masCalls.map((m) => m.id)).toEqual(['nest-w']);
        expect(back!.agentCalls[0]?.finalResponse).toBe('Clear skies in Paris.');
        const [summary] = await store.listSessions({ from: back!.startTime, to: back!.startTime });
        expect(summary?.counts).toEqual({ masCalls: 1, agentCalls: 1, taskCalls: 0, llmCalls: 2, toolCalls: 1, mcpServers: 1 });
      };
      await check('nest-outer-first', outer, inner);
      await check('nest-inner-first', inner, outer); // the stored inner calls are removed
      expect(byId((await store.getSession('nest-inner-first'))!.llmCalls)).toStrictEqual(byId((await store.getSession('nest-outer-first'))!.llmCalls));
      // Both parts in one batch fold the same way.
      await store.writeSessions([{ ...inner, id: 'nest-batch' }, { ...outer, id: 'nest-batch' }]);
      expect(await store.getSession('nest-batch')).toStrictEqual({ ...(await store.getSession('nest-inner-first')), id: 'nest-batch' });
    });

    it('removes the results of a stored inner call folded into its outer call, and keeps the others', async () => {
      const { outer, inner } = nestedInParts('fold');
      await store.writeSessions([inner]);
      const results = [
        metricResult('on-inner-llm', 'fold', { level: 'LLMCall', measures: 'fold-li', at: 1 }),
        metricResult('on-inner-tool', 'fold', { level: 'ToolCall', measures: 'fold-ti', at: 2 }),
        metricResult('on-server-llm', 'fold', { level: 'LLMCall', measures: 'fold-ls', at: 3 }),
        metricResult('on-session', 'fold', { at: 4 }),
      ];
      expect(await store.writeMetricResults(DEFINITIONS, results)).toEqual({ written: 4, rejected: [] });
      await store.writeSessions([outer]);
      expect((await store.getMetricResults('fold', { recursive: true })).map((r) => r.result.id)).toEqual(['on-session', 'on-server-llm']);
      // The inner part written again changes nothing: its calls are folded again, nothing left to remove.
      const before = await store.getSession('fold');
      await store.writeSessions([inner]);
      expect(await store.getSession('fold')).toStrictEqual(before);
    });

    it('keeps the Session results of a session keyed by its trace id when its implicit MAS call (the same id) is removed', async () => {
      const traceId = tripInParts('probe').withoutRoot.masCalls[0]!.id;
      const { withRoot, withoutRoot } = tripInParts(traceId); // the session id is the trace id, as ingestion falls back to
      await store.writeSessions([withoutRoot]);
      expect(withoutRoot.masCalls.map((m) => m.id)).toEqual([traceId]);
      const onSession = metricResult('keyed-session', traceId, { at: 1 });
      const onImplicit = metricResult('keyed-mas', traceId, { level: 'MASCall', measures: traceId, at: 2 });
      expect(await store.writeMetricResults(DEFINITIONS, [onSession, onImplicit])).toEqual({ written: 2, rejected: [] });
      await store.writeSessions([withRoot]);
      expect((await store.getSession(traceId))?.masCalls.map((m) => m.id)).toEqual([`${traceId}-w`]);
      expect((await store.getMetricResults(traceId, { recursive: true })).map((r) => r.result.id)).toEqual(['keyed-session']);
    });

    it('stores an element id repeated within one write once: first position, last value', async () => {
      const first = toolCall('dup', 1, 0);
      const last = toolCall('dup', 1, 0, { toolName: 'renamed' });
      const server = { name: 'files', tools: [], resources: [], prompts: [] };
      await store.writeSessions([
        bareSession('dup', 0, { toolCalls: [first, toolCall('dup', 2, 0), last], mcpServers: [server, { ...server, transport: 'sse' }] }),
      ]);
      const back = await store.getSession('dup');
      expect(back?.toolCalls).toStrictEqual([last, toolCall('dup', 2, 0)]);
      expect(back?.mcpServers).toStrictEqual([{ ...server, transport: 'sse' }]);
    });

    it('reads a 10,000-span session back complete and in order', async () => {
      const session = bigSession('big', 10_000);
      expect(
        session.masCalls.length + session.agentCalls.length + session.taskCalls.length + session.llmCalls.length + session.toolCalls.length,
      ).toBe(10_000);
      await store.writeSessions([session]);
      const back = await store.getSession('big');
      expect(back).toStrictEqual(session);
      const [summary] = await store.listSessions();
      expect(summary?.counts).toEqual({ masCalls: 1, agentCalls: 200, taskCalls: 2400, llmCalls: 2499, toolCalls: 4900, mcpServers: 0 });
    });

    it('lists sessions (and only their ids) newest first with filters, paging and element counts', async () => {
      await store.writeSessions([
        bareSession('s1', 1000, { serviceName: 'alpha', appName: 'web' }),
        bareSession('s2', 2000, { serviceName: 'beta', appName: 'web' }),
        bareSession('s3', 3000, { serviceName: 'alpha', appName: 'cli' }),
        richSession('s4', 4000),
        bareSession('s5', 5000, { serviceName: 'alpha', appName: 'web', toolCalls: [toolCall('s5', 1, 5000)] }),
      ]);
      // listSessionIds answers what listSessions lists, in its order, for every filter.
      const ids = async (options: Parameters<KnowledgeGraphStore['listSessions']>[0]) => {
        const listed = (await store.listSessions(options)).map((s) => s.id);
        expect(await store.listSessionIds(options)).toEqual(listed);
        return listed;
      };
      expect(await ids({})).toEqual(['s5', 's4', 's3', 's2', 's1']);
      expect(await ids({ serviceName: 'alpha' })).toEqual(['s5', 's3', 's1']);
      expect(await ids({ appName: 'web' })).toEqual(['s5', 's2', 's1']);
      expect(await ids({ serviceName: 'alpha', appName: 'web' })).toEqual(['s5', 's1']);
      expect(await ids({ from: 2000, to: 4000 })).toEqual(['s4', 's3', 's2']);
      expect(await ids({ from: new Date(3000), to: new Date(5000).toISOString() })).toEqual(['s5', 's4', 's3']);
      expect(await ids({ limit: 2 })).toEqual(['s5', 's4']);
      expect(await ids({ limit: 2, offset: 2 })).toEqual(['s3', 's2']);
      expect(await ids({ offset: 4 })).toEqual(['s1']);
      const all = await store.listSessions();
      expect(all[0]).toStrictEqual({
        id: 's5',
        startTime: 5000,
        endTime: 6000,
        serviceName: 'alpha',
        appName: 'web',
        counts: { masCalls: 0, agentCalls: 0, taskCalls: 0, llmCalls: 0, toolCalls: 1, mcpServers: 0 },
      });
      expect(all[1]).toStrictEqual({
        id: 's4',
        startTime: 4000,
        endTime: 9000.25,
        serviceName: 'travel-service',
        appName: 'travel-app',
        counts: { masCalls: 1, agentCalls: 1, taskCalls: 1, llmCalls: 1, toolCalls: 1, mcpServers: 2 },
      });
      expect(await store.sessionExists(['s2', 'nope', 's4', 's2'])).toEqual(new Set(['s2', 's4']));
      expect(await store.sessionExists([])).toEqual(new Set());
    });

    it('writes results in bulk and rewrites the same ids without duplicates', async () => {
      await store.writeSessions([bareSession('sess', T0_MS)]);
      const batch = Array.from({ length: 60 }, (_, i) =>
        metricResult(`r${String(i).padStart(2, '0')}`, 'sess', { metric: DEFINITIONS[i % 3], at: i, value: i }),
      );
      expect(await store.writeMetricResults(DEFINITIONS, batch)).toEqual({ written: 60, rejected: [] });
      const rewritten = batch.map((r) => ({ ...r, result: r.result + 1000 }));
      // The definitions are already stored: a batch may omit them.
      expect(await store.writeMetricResults([], rewritten)).toEqual({ written: 60, rejected: [] });
      const stored = await store.getMetricResults('sess');
      expect(stored).toHaveLength(60);
      expect(stored.map((s) => s.result.result)).toEqual(Array.from({ length: 60 }, (_, i) => 1059 - i));
      expect(stored[59]).toStrictEqual({ result: rewritten[0], metric: DURATION });
      expect(stored.find((s) => s.result.id === 'r01')).toStrictEqual({ result: rewritten[1], metric: TOOL_ERRORS });
      expect(stored.find((s) => s.result.id === 'r02')).toStrictEqual({ result: rewritten[2], metric: RELEVANCY });
      expect(warnings).toEqual([]);
    });

    it('keeps awkward text and numbers of results exactly; a repeated id in one batch keeps its last value', async () => {
      await store.writeSessions([bareSession('sess', T0_MS)]);
      const awkward = 'tab\there\nnew line\r\nback\\slash \\N "quoted" é ✓ \u{1F600}';
      const base = metricResult('awk-1', 'sess', { metric: RELEVANCY, at: 1 });
      const first: MetricResult = {
        ...base,
        reasoning: awkward,
        evaluationModel: 'model\twith\\tab',
        result: 1e-300,
        details: { text: awkward, nested: { list: [1, 'a\\b', null] } },
      };
      const second: MetricResult = { ...metricResult('awk-2', 'sess', { at: 2 }), reasoning: '\\N', result: 1.7976931348623157e308 };
      const overwritten = { ...second, result: -5e-324 };
      expect(await store.writeMetricResults(DEFINITIONS, [first, overwritten, second])).toEqual({ written: 2, rejected: [] });
      const stored = await store.getMetricResults('sess');
      expect(stored.map((s) => s.result)).toStrictEqual([second, first]);
    });

    it('a batch mixing stored and new ids updates the stored ones and adds the new ones', async () => {
      await store.writeSessions([bareSession('sess', T0_MS)]);
      const a = metricResult('mix-a', 'sess', { at: 1, value: 1 });
      const b = metricResult('mix-b', 'sess', { at: 2, value: 2 });
      expect(await store.writeMetricResults(DEFINITIONS, [a, b])).toEqual({ written: 2, rejected: [] });
      const b2 = { ...b, result: 20 };
      const c = metricResult('mix-c', 'sess', { at: 3, value: 3 });
      expect(await store.writeMetricResults(DEFINITIONS, [c, b2])).toEqual({ written: 2, rejected: [] });
      expect((await store.getMetricResults('sess')).map((s) => s.result)).toStrictEqual([c, b2, a]);
    });

    it('deletes results by session and id, ignoring ids it does not hold', async () => {
      await store.writeSessions([bareSession('sess', T0_MS), bareSession('sess2', T0_MS)]);
      const a = metricResult('del-a', 'sess', { at: 1 });
      const b = metricResult('del-b', 'sess', { at: 2 });
      const c = metricResult('del-c', 'sess2', { at: 3 });
      expect(await store.writeMetricResults(DEFINITIONS, [a, b, c])).toEqual({ written: 3, rejected: [] });
      const removed = await store.deleteMetricResults([
        { sessionId: 'sess', id: 'del-a' },
        { sessionId: 'sess2', id: 'del-c' },
        { sessionId: 'sess', id: 'ghost' },
        { sessionId: 'sess2', id: 'del-b' }, // another session's id: not this one's result
      ]);
      expect(removed).toBe(2);
      expect((await store.getMetricResults('sess')).map((s) => s.result)).toStrictEqual([b]);
      expect(await store.getMetricResults('sess2')).toEqual([]);
      expect(await store.deleteMetricResults([])).toBe(0);
      // Deleted, an id can be written again.
      expect(await store.writeMetricResults(DEFINITIONS, [a])).toEqual({ written: 1, rejected: [] });
      expect((await store.getMetricResults('sess')).map((s) => s.result)).toStrictEqual([b, a]);
    });

    it('upserts Metric definitions: a changed definition replaces the stored one', async () => {
      await store.writeSessions([bareSession('sess', T0_MS)]);
      await store.writeMetricResults(DEFINITIONS, [metricResult('d1', 'sess', { at: 1 })]);
      const changed = { ...DURATION, unit: 's', valueRange: 'non-negative seconds', description: undefined };
      await store.writeMetricResults([changed], [metricResult('d2', 'sess', { at: 2 })]);
      const { description: _d, ...expected } = changed;
      expect((await store.getMetricResults('sess')).map((s) => [s.result.id, s.metric])).toStrictEqual([
        ['d2', expected],
        ['d1', expected],
      ]);
      await expect(store.writeMetricResults([{ ...DURATION, id: '' }], [])).rejects.toThrow('invalid Metric definition "": id:');
    });

    it('rejects invalid results one by one with reasons and saves the rest', async () => {
      await store.writeSessions([bareSession('sess', T0_MS)]);
      const good1 = metricResult('good-1', 'sess', { at: 1 });
      const good2 = metricResult('good-2', 'sess', { metric: RELEVANCY, at: 2 });
      const notANumber = { ...metricResult('bad-nan', 'sess'), result: Number.NaN };
      const negativeCost = { ...metricResult('bad-cost', 'sess'), evaluationCost: -0.5, evaluationPromptTokenCount: 1.5 };
      const unknownMetric = { ...metricResult('bad-metric', 'sess'), ofMetricType: 'mce:Nope' };
      const noId = { ...metricResult('', 'sess') };
      const badDate = { ...metricResult('bad-date', 'sess'), timestamp: 'yesterday' };
      const otherSession = metricResult('bad-measures', 'sess', { measures: 'another-session' });
      // Details JSON cannot hold: a plugin's BigInt, a cycle.
      const bigint = { ...metricResult('bad-bigint', 'sess'), details: { big: 10n } };
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const cycle = { ...metricResult('bad-cycle', 'sess'), details: cyclic };
      const outcome = await store.writeMetricResults(DEFINITIONS, [good1, notANumber, negativeCost, good2, unknownMetric, noId, badDate, otherSession, bigint, cycle]);
      expect(outcome.written).toBe(2);
      expect(outcome.rejected.map((r) => [r.id, r.reasons.map((x) => x.path)])).toEqual([
        ['bad-nan', ['result']],
        ['bad-cost', ['evaluationPromptTokenCount', 'evaluationCost']],
        ['bad-metric', ['ofMetricType']],
        ['#5', ['id']],
        ['bad-date', ['timestamp']],
        ['bad-measures', ['measures.id']],
        ['bad-bigint', ['details']],
        ['bad-cycle', ['details']],
      ]);
      expect(outcome.rejected[2]?.reasons[0]?.message).toBe('no Metric definition with id "mce:Nope"');
      expect(outcome.rejected[6]?.reasons[0]?.message).toBe('cannot be stored as JSON: Do not know how to serialize a BigInt');
      expect(warnings).toHaveLength(8);
      expect(warnings[0]).toMatchObject({ details: { metricResultId: 'bad-nan' } });
      expect((await store.getMetricResults('sess')).map((s) => s.result)).toStrictEqual([good2, good1]);
    });

    it('reads results of the session or of all its calls, by metric names, newest first', async () => {
      const results: MetricResult[] = [
        metricResult('session-old', 'S', { at: 10 }),
        metricResult('session-new', 'S', { at: 30, metric: RELEVANCY }),
        metricResult('llm', 'S', { at: 20, level: 'LLMCall', measures: 'span-llm', metric: RELEVANCY }),
        metricResult('tool', 'S', { at: 40, level: 'ToolCall', measures: 'span-tool', metric: TOOL_ERRORS }),
        metricResult('agent-tie-b', 'S', { at: 5, level: 'AgentCall', measures: 'span-agent' }),
        metricResult('agent-tie-a', 'S', { at: 5, level: 'AgentCall', measures: 'span-agent' }),
        metricResult('other-session', 'T', { at: 50 }),
      ];
      await store.writeSessions([richSession('S', 0), bareSession('T', 0)]);
      expect(await store.writeMetricResults(DEFINITIONS, results)).toEqual({ written: 7, rejected: [] });
      const ids = async (q?: Parameters<KnowledgeGraphStore['getMetricResults']>[1]) =>
        (await store.getMetricResults('S', q)).map((s) => s.result.id);
      expect(await ids()).toEqual(['session-new', 'session-old']);
      expect(await ids({ recursive: true })).toEqual(['tool', 'session-new', 'llm', 'session-old', 'agent-tie-a', 'agent-tie-b']);
      expect(await ids({ recursive: true, metricNames: ['AnswerRelevancy', 'ToolErrorRate'] })).toEqual(['tool', 'session-new', 'llm']);
      expect(await ids({ metricNames: ['Duration'] })).toEqual(['session-old']);
      expect(await ids({ metricNames: [] })).toEqual([]);
      expect(await store.getMetricResults('nobody', { recursive: true })).toEqual([]);

      const [newest] = await store.getMetricResults('S');
      expect(toResultRecord(newest!.result, newest!.metric)).toStrictEqual({
        id: 'session-new',
        name: 'AnswerRelevancy',
        provider: 'deepeval',
        level: 'Session',
        measures: 'S',
        result: 0.75,
        unit: 'dimensionless',
        reasoning: 'The answer addresses the question.',
        evaluationModel: 'gpt-4o',
        evaluationPromptTokenCount: 512,
        evaluationCompletionTokenCount: 40,
        evaluationTotalTokenCount: 552,
        evaluationCost: 0.00168,
        timestamp: '2026-01-01T00:00:30.000Z',
        details: { samples: [4, 5], method: 'logprobs' },
      });
    });

    describe('results across sessions', () => {
      // Newest first: q-c1 (50 s), q-b2 (40), q-a3 (30), q-a2 and q-b1 (20: by id), q-a1 (10), q-c2 (5).
      const written: MetricResult[] = [
        metricResult('q-a1', 'A', { at: 10, value: 100 }),
        metricResult('q-a2', 'A', { at: 20, value: 0.9, metric: RELEVANCY, level: 'LLMCall', measures: 'A-llm' }),
        metricResult('q-a3', 'A', { at: 30, value: 50, metric: TOOL_ERRORS, level: 'ToolCall', measures: 'A-tool' }),
        metricResult('q-b1', 'B', { at: 20, value: 200 }),
        metricResult('q-b2', 'B', { at: 40, value: 0.2, metric: RELEVANCY }),
        metricResult('q-c1', 'C', { at: 50, value: 5, level: 'LLMCall', measures: 'C-llm' }),
        metricResult('q-c2', 'C', { at: 5, value: 300 }),
      ];
      const at = (seconds: number) => T0_MS + seconds * 1000;

      beforeEach(async () => {
        await store.writeSessions([richSession('A', T0_MS), bareSession('B', T0_MS), bareSession('C', T0_MS)]);
        expect(await store.writeMetricResults(DEFINITIONS, written)).toEqual({ written: 7, rejected: [] });
      });

      it('gives every result with its Metric, newest first, ties by id', async () => {
        const all = await store.queryMetricResults();
        expect(all.map((r) => r.result.id)).toEqual(['q-c1', 'q-b2', 'q-a3', 'q-a2', 'q-b1', 'q-a1', 'q-c2']);
        const byId = new Map(written.map((r) => [r.id, r]));
        for (const row of all) expect(row.result).toStrictEqual(byId.get(row.result.id));
        expect(all.map((r) => r.metric.id)).toEqual([
          'mce:Duration', 'deepeval:AnswerRelevancy', 'mce:ToolErrorRate', 'deepeval:AnswerRelevancy', 'mce:Duration', 'mce:Duration', 'mce:Duration',
        ]);
        expect(all[2]).toStrictEqual({ result: written[2], metric: TOOL_ERRORS });
        expect(all[1]).toStrictEqual({ result: written[4], metric: RELEVANCY });
      });

      it('filters by metric name or Metric id (provider:name)', async () => {
        expect(await queried({ metrics: ['Duration'] })).toEqual(['q-c1', 'q-b1', 'q-a1', 'q-c2']);
        expect(await queried({ metrics: ['deepeval:AnswerRelevancy', 'ToolErrorRate'] })).toEqual(['q-b2', 'q-a3', 'q-a2']);
        expect(await queried({ metrics: ['mce:AnswerRelevancy'] })).toEqual([]); // another provider's
        expect(await queried({ metrics: ['mce:Duration', 'Duration'] })).toEqual(['q-c1', 'q-b1', 'q-a1', 'q-c2']);
        expect(await queried({ metrics: ['Nope'] })).toEqual([]);
      });

      it('filters by level (the ontology class of what is measured) and by session', async () => {
        expect(await queried({ levels: ['Session'] })).toEqual(['q-b2', 'q-b1', 'q-a1', 'q-c2']);
        expect(await queried({ levels: ['LLMCall', 'ToolCall'] })).toEqual(['q-c1', 'q-a3', 'q-a2']);
        expect(await queried({ levels: ['TaskCall'] })).toEqual([]);
        expect(await queried({ sessionIds: ['A', 'C'] })).toEqual(['q-c1', 'q-a3', 'q-a2', 'q-a1', 'q-c2']);
        expect(await queried({ sessionIds: ['B', 'nobody', 'B'] })).toEqual(['q-b2', 'q-b1']);
        const rows = await store.queryMetricResults({ sessionIds: ['A'], levels: ['ToolCall'] });
        expect(rows.map((r) => [r.result.sessionId, r.result.measures])).toEqual([['A', { level: 'ToolCall', id: 'A-tool' }]]);
      });

      it('filters by a time window on the timestamp (bounds included, as epoch ms, Date or ISO text) and by value', async () => {
        expect(await queried({ from: at(20) })).toEqual(['q-c1', 'q-b2', 'q-a3', 'q-a2', 'q-b1']);
        expect(await queried({ to: at(20) })).toEqual(['q-a2', 'q-b1', 'q-a1', 'q-c2']);
        expect(await queried({ from: new Date(at(20)), to: new Date(at(30)).toISOString() })).toEqual(['q-a3', 'q-a2', 'q-b1']);
        expect(await queried({ from: at(20) + 0.5, to: at(40) - 0.5 })).toEqual(['q-a3']); // whole milliseconds stored
        expect(await queried({ from: at(20) + 1, to: at(20) + 1 })).toEqual([]);
        expect(await queried({ min: 50 })).toEqual(['q-a3', 'q-b1', 'q-a1', 'q-c2']);
        expect(await queried({ max: 1 })).toEqual(['q-b2', 'q-a2']);
        expect(await queried({ min: 0.5, max: 100 })).toEqual(['q-c1', 'q-a3', 'q-a2', 'q-a1']);
        expect(await queried({ min: -1, max: -0.5 })).toEqual([]);
        expect(await queried({ metrics: ['Duration'], levels: ['Session'], from: at(6), to: at(40), max: 250 })).toEqual(['q-b1', 'q-a1']);
      });

      it('pages newest first: limit and offset, a tie split across two pages kept in id order', async () => {
        expect(await queried({ limit: 2 })).toEqual(['q-c1', 'q-b2']);
        expect(await queried({ limit: 2, offset: 2 })).toEqual(['q-a3', 'q-a2']);
        expect(await queried({ limit: 2, offset: 4 })).toEqual(['q-b1', 'q-a1']);
        expect(await queried({ limit: 2, offset: 6 })).toEqual(['q-c2']);
        expect(await queried({ offset: 5 })).toEqual(['q-a1', 'q-c2']);
        expect(await queried({ offset: 7 })).toEqual([]);
        expect(await queried({ limit: 0 })).toEqual([]);
        expect(await queried({ metrics: ['Duration'], limit: 1, offset: 1 })).toEqual(['q-b1']);
      });

      it('pages by cursor: after the last result of a page, a tie split across pages kept in id order, with the filters', async () => {
        const after = (id: string) => ({ timestamp: written.find((r) => r.id === id)!.timestamp, id });
        expect(await queried({ limit: 2, after: after('q-b2') })).toEqual(['q-a3', 'q-a2']);
        expect(await queried({ limit: 2, after: after('q-a2') })).toEqual(['q-b1', 'q-a1']); // q-a2 and q-b1 share a time
        expect(await queried({ after: after('q-b1') })).toEqual(['q-a1', 'q-c2']);
        expect(await queried({ after: after('q-c2') })).toEqual([]);
        expect(await queried({ metrics: ['Duration'], after: after('q-c1'), limit: 1 })).toEqual(['q-b1']);
        expect(await queried({ sessionIds: ['A'], after: after('q-a3') })).toEqual(['q-a2', 'q-a1']);
        expect(await queried({ limit: 1, offset: 1, after: after('q-a3') })).toEqual(['q-b1']);
        // Walked page by page, every result once, in the order of the listing.
        const walked: string[] = [];
        for (let page = await store.queryMetricResults({ limit: 3 }); page.length > 0; ) {
          walked.push(...page.map((r) => r.result.id));
          const last = page.at(-1)!.result;
          page = await store.queryMetricResults({ limit: 3, after: { timestamp: last.timestamp, id: last.id } });
        }
        expect(walked).toEqual(['q-c1', 'q-b2', 'q-a3', 'q-a2', 'q-b1', 'q-a1', 'q-c2']);
        await expect(store.queryMetricResults({ after: { timestamp: 'yesterday', id: 'q-a1' } })).rejects.toThrow("result query: after must be a result's timestamp (ISO 8601) and id");
      });

      it('matches nothing for a list given empty, and refuses a bound or page that is not a number', async () => {
        expect(await queried({ metrics: [] })).toEqual([]);
        expect(await queried({ levels: [] })).toEqual([]);
        expect(await queried({ sessionIds: [] })).toEqual([]);
        await expect(store.queryMetricResults({ min: Number.NaN })).rejects.toThrow('result query: min must be a finite number (got NaN)');
        await expect(store.queryMetricResults({ limit: -1 })).rejects.toThrow('result query: limit must be a non-negative integer (got -1)');
        await expect(store.queryMetricResults({ from: 'yesterday' })).rejects.toThrow('not a time: yesterday');
      });
    });

    describe('a summary of results across sessions', () => {
      const iso = (seconds: number) => new Date(T0_MS + seconds * 1000).toISOString();
      const duration = (i: number, sessionId: string, at: number, value: number) =>
        metricResult(`d-${i}`, sessionId, { at, value, level: 'LLMCall', measures: `${sessionId}-llm-${i}` });
      // Duration at LLMCall: ten values (a tie at 2, negatives) whose nearest-rank percentiles are not the interpolated
      // ones: sorted -4, -1.5, 0, 2, 2, 5.5, 6, 10, 30, 100 (sum 150).
      const written: MetricResult[] = [
        duration(1, 'S1', 1, 100), duration(2, 'S1', 5, -4), duration(3, 'S1', 10, 2), duration(4, 'S1', 15, 30),
        duration(5, 'S2', 20, -1.5), duration(6, 'S2', 25, 2), duration(7, 'S2', 40, 5.5),
        duration(8, 'S3', 45, 0), duration(9, 'S3', 50, 6), duration(10, 'S3', 60, 10),
        // Duration at Session level: one value.
        metricResult('s-1', 'S2', { at: 30, value: -7 }),
        // AnswerRelevancy at Session level: 0.25, 0.5, 0.5, 0.75 in two sessions.
        metricResult('a-1', 'S1', { at: 2, value: 0.25, metric: RELEVANCY }),
        metricResult('a-2', 'S1', { at: 3, value: 0.5, metric: RELEVANCY }),
        metricResult('a-3', 'S3', { at: 50, value: 0.5, metric: RELEVANCY }),
        metricResult('a-4', 'S3', { at: 55, value: 0.75, metric: RELEVANCY }),
        // ToolErrorRate at ToolCall: 10, 20.
        metricResult('t-1', 'S3', { at: 45, value: 20, metric: TOOL_ERRORS, level: 'ToolCall', measures: 'S3-tool-1' }),
        metricResult('t-2', 'S3', { at: 46, value: 10, metric: TOOL_ERRORS, level: 'ToolCall', measures: 'S3-tool-2' }),
      ];
      type Figures = { count: number; mean: number; min: number; max: number; p50: number; p90: number; p95: number; sessions: number };
      const row = (metric: (typeof DEFINITIONS)[0], level: string, figures: Figures, first: number, last: number) => ({ metric, level, ...figures, first: iso(first), last: iso(last) });
      // Worked by hand: p-th percentile = value of rank ceil(p·n/100) in ascending order.
      const relevancy = row(RELEVANCY, 'Session', { count: 4, mean: 0.5, min: 0.25, max: 0.75, p50: 0.5, p90: 0.75, p95: 0.75, sessions: 2 }, 2, 55);
      const single = row(DURATION, 'Session', { count: 1, mean: -7, min: -7, max: -7, p50: -7, p90: -7, p95: -7, sessions: 1 }, 30, 30);
      // n = 10: ranks 5, 9, 10 (interpolation would give 3.75, 37, 68.5).
      const ten = row(DURATION, 'LLMCall', { count: 10, mean: 15, min: -4, max: 100, p50: 2, p90: 30, p95: 100, sessions: 3 }, 1, 60);
      const errors = row(TOOL_ERRORS, 'ToolCall', { count: 2, mean: 15, min: 10, max: 20, p50: 10, p90: 20, p95: 20, sessions: 1 }, 45, 46);

      beforeEach(async () => {
        await store.writeSessions([bareSession('S1', T0_MS), bareSession('S2', T0_MS), bareSession('S3', T0_MS)]);
        expect(await store.writeMetricResults(DEFINITIONS, written)).toEqual({ written: 17, rejected: [] });
      });

      it('gives one row per Metric and level, by Metric id then level in ontology order, with exact figures', async () => {
        expect(await store.summarizeMetricResults()).toStrictEqual([relevancy, single, ten, errors]);
      });

      it('summarizes only the results every filter keeps', async () => {
        expect(await store.summarizeMetricResults({ metrics: ['Duration'] })).toStrictEqual([single, ten]);
        expect(await store.summarizeMetricResults({ metrics: ['mce:ToolErrorRate', 'AnswerRelevancy'] })).toStrictEqual([relevancy, errors]);
        expect(await store.summarizeMetricResults({ levels: ['LLMCall', 'ToolCall'] })).toStrictEqual([ten, errors]);
        // S2: -1.5, 2, 5.5 (ranks 2, 3, 3) and the single one.
        expect(await store.summarizeMetricResults({ sessionIds: ['S2', 'nobody'] })).toStrictEqual([
          single,
          row(DURATION, 'LLMCall', { count: 3, mean: 2, min: -1.5, max: 5.5, p50: 2, p90: 5.5, p95: 5.5, sessions: 1 }, 20, 40),
        ]);
        // 15–40 s: 30, -1.5, 2, 5.5 → sorted -1.5, 2, 5.5, 30 (ranks 2, 4, 4).
        expect(await store.summarizeMetricResults({ from: iso(15), to: new Date(T0_MS + 40_000) })).toStrictEqual([
          single,
          row(DURATION, 'LLMCall', { count: 4, mean: 9, min: -1.5, max: 30, p50: 2, p90: 30, p95: 30, sessions: 2 }, 15, 40),
        ]);
        // Values of at least 0 at LLMCall: 0, 2, 2, 5.5, 6, 10, 30, 100 (sum 155.5; ranks 4, 8, 8).
        expect(await store.summarizeMetricResults({ metrics: ['mce:Duration'], levels: ['LLMCall'], min: 0 })).toStrictEqual([
          row(DURATION, 'LLMCall', { count: 8, mean: 19.4375, min: 0, max: 100, p50: 5.5, p90: 100, p95: 100, sessions: 3 }, 1, 60),
        ]);
        // At most -1: -7, and -4, -1.5 (ranks 1, 2, 2).
        expect(await store.summarizeMetricResults({ max: -1 })).toStrictEqual([
          single,
          row(DURATION, 'LLMCall', { count: 2, mean: -2.75, min: -4, max: -1.5, p50: -4, p90: -1.5, p95: -1.5, sessions: 2 }, 5, 20),
        ]);
      });

      it('answers no rows when nothing matches, and refuses a bound that is not a number', async () => {
        expect(await store.summarizeMetricResults({ min: 1000 })).toEqual([]);
        expect(await store.summarizeMetricResults({ metrics: ['Nope'] })).toEqual([]);
        expect(await store.summarizeMetricResults({ sessionIds: [] })).toEqual([]);
        expect(await store.summarizeMetricResults({ from: iso(61) })).toEqual([]);
        await expect(store.summarizeMetricResults({ max: Number.POSITIVE_INFINITY })).rejects.toThrow('result query: max must be a finite number (got Infinity)');
      });
    });

    describe('deleting sessions', () => {
      it('removes each session with its calls, MCP servers and results, returns the ids that were stored, keeps the rest', async () => {
        const keep = richSession('keep', T0_MS + 5);
        await store.writeSessions([richSession('del-1', T0_MS), bareSession('del-2', T0_MS + 1, { toolCalls: [toolCall('del-2', 1, T0_MS)] }), keep]);
        const results = [
          metricResult('d1-session', 'del-1', { at: 1 }),
          metricResult('d1-llm', 'del-1', { at: 2, level: 'LLMCall', measures: 'del-1-llm', metric: RELEVANCY }),
          metricResult('d1-tool', 'del-1', { at: 3, level: 'ToolCall', measures: 'del-1-tool', metric: TOOL_ERRORS }),
          metricResult('d2-tool', 'del-2', { at: 4, level: 'ToolCall', measures: 'del-2-tool-1' }),
          metricResult('keep-session', 'keep', { at: 5 }),
          metricResult('keep-llm', 'keep', { at: 6, level: 'LLMCall', measures: 'keep-llm', metric: RELEVANCY }),
        ];
        expect(await store.writeMetricResults(DEFINITIONS, results)).toEqual({ written: 6, rejected: [] });
        expect(await store.deleteSessions(['del-2', 'ghost', 'del-1', 'del-2'])).toEqual(['del-2', 'del-1']);
        expect(await store.getSession('del-1')).toBeUndefined();
        expect(await store.getSessions(['del-1', 'del-2'])).toEqual(new Map());
        expect(await store.sessionExists(['del-1', 'del-2', 'keep'])).toEqual(new Set(['keep']));
        expect(await store.listSessionIds()).toEqual(['keep']);
        expect(await store.getMetricResults('del-1', { recursive: true })).toEqual([]);
        expect(await store.getMetricResults('del-2', { recursive: true })).toEqual([]);
        expect(await queried({})).toEqual(['keep-llm', 'keep-session']);
        expect(await store.getSession('keep')).toStrictEqual(keep);
        // The Metric definitions stay: a result may name one without the batch giving it.
        expect(await store.writeMetricResults([], [metricResult('after', 'keep', { at: 7, metric: TOOL_ERRORS })])).toEqual({ written: 1, rejected: [] });
        expect(await store.deleteSessions(['del-1'])).toEqual([]); // already gone: no error
        expect(await store.deleteSessions([])).toEqual([]);
      });

      it('rejects the results of a session not stored, naming it, and writes the rest of the batch', async () => {
        await store.writeSessions([bareSession('other', T0_MS)]);
        const results = [metricResult('o-1', 'orphan', { at: 1 }), metricResult('kept', 'other', { at: 3 }), metricResult('o-2', 'orphan', { at: 2, level: 'LLMCall', measures: 'x' })];
        const outcome = await store.writeMetricResults(DEFINITIONS, results);
        const reason = { path: 'sessionId', message: 'session "orphan" is not stored (deleted while its results were computed?)' };
        expect(outcome).toEqual({
          written: 1,
          rejected: [
            { id: 'o-1', reasons: [reason], unstoredSession: 'orphan' },
            { id: 'o-2', reasons: [reason], unstoredSession: 'orphan' },
          ],
        });
        // One warning for the session, however many of its results came.
        expect(warnings.map((w) => [w.message, w.details])).toEqual([['metric results rejected: their session is not stored', { sessionId: 'orphan', results: 2 }]]);
        expect(await queried({})).toEqual(['kept']);
        expect(await store.deleteSessions(['orphan'])).toEqual([]);
      });

      it('a late write of a deleted session stores nothing of it: no orphan result', async () => {
        await store.writeSessions([bareSession('late', T0_MS), bareSession('other', T0_MS)]);
        expect(await store.writeMetricResults(DEFINITIONS, [metricResult('l-1', 'late', { at: 1 })])).toEqual({ written: 1, rejected: [] });
        expect(await store.deleteSessions(['late'])).toEqual(['late']);
        // The computation of the session still running when it was deleted stores its results now.
        const outcome = await store.writeMetricResults(DEFINITIONS, [metricResult('l-2', 'late', { at: 2 }), metricResult('o-1', 'other', { at: 3 })]);
        expect(outcome.written).toBe(1);
        expect(outcome.rejected.map((r) => [r.id, r.unstoredSession])).toEqual([['l-2', 'late']]);
        expect(await queried({})).toEqual(['o-1']);
        expect(await store.getMetricResults('late', { recursive: true })).toEqual([]);
      });

      it('a session written in parts, deleted, then written again is a new session: nothing of the first is left', async () => {
        const { withRoot, withoutRoot } = tripInParts('zz-gone');
        const server = { name: 'zz-gone-server', tools: [], resources: [], prompts: [] };
        await store.writeSessions([{ ...withoutRoot, mcpServers: [server] }]);
        const implicitId = withoutRoot.masCalls[0]!.id;
        expect(
          await store.writeMetricResults(DEFINITIONS, [
            metricResult('zz-1', 'zz-gone', { at: 1, level: 'MASCall', measures: implicitId }),
            metricResult('zz-2', 'zz-gone', { at: 2, level: 'ToolCall', measures: 'zz-gone-t' }),
          ]),
        ).toEqual({ written: 2, rejected: [] });
        await store.writeSessions([withRoot]); // reconciled: the implicit MAS call and its result are removed
        expect(
          await store.writeMetricResults(DEFINITIONS, [
            metricResult('zz-3', 'zz-gone', { at: 3 }),
            metricResult('zz-4', 'zz-gone', { at: 4, level: 'AgentCall', measures: 'zz-gone-a', metric: RELEVANCY }),
          ]),
        ).toEqual({ written: 2, rejected: [] });
        expect(await queried({ sessionIds: ['zz-gone'] })).toEqual(['zz-4', 'zz-3', 'zz-2']);
        await store.writeSessions([bareSession('bystander', T0_MS + 60_000)]);
        expect(await store.writeMetricResults(DEFINITIONS, [metricResult('by-1', 'bystander', { at: 9 })])).toEqual({ written: 1, rejected: [] });

        expect(await store.deleteSessions(['zz-gone'])).toEqual(['zz-gone']);
        if (factory.rowsMentioning) {
          const left = await factory.rowsMentioning(store, 'zz-gone');
          expect(Object.keys(left).length).toBeGreaterThan(0);
          expect(Object.entries(left).filter(([, n]) => n > 0)).toEqual([]);
          // The scan itself finds what is there: the bystander's rows.
          expect(Object.entries(await factory.rowsMentioning(store, 'bystander')).filter(([, n]) => n > 0).map(([table]) => table).sort()).toEqual(
            Object.keys(left).filter((table) => ['metric_results', 'sessions', 'MetricResult', 'Session'].includes(table)).sort(),
          );
        }
        expect(await queried({})).toEqual(['by-1']);

        // Written again: exactly the part written, at the first positions, no call, server or result of before.
        await store.writeSessions([withRoot]);
        expect(await store.getSession('zz-gone')).toStrictEqual(withRoot);
        const [summary] = await store.listSessions({ from: withRoot.startTime, to: withRoot.startTime });
        expect(summary).toMatchObject({ id: 'zz-gone', counts: { masCalls: 1, agentCalls: 1, taskCalls: 0, llmCalls: 1, toolCalls: 0, mcpServers: 0 } });
        expect(await store.getMetricResults('zz-gone', { recursive: true })).toEqual([]);
      });
    });

    it('is an async-disposable resource', async () => {
      const other = await factory.open({ warn: () => undefined });
      {
        await using held = other;
        await held.writeSessions([bareSession('disposable', 1)]);
      }
      // Leaving the block closed it: it no longer answers.
      await expect(other.sessionExists(['disposable'])).rejects.toThrow();
      // Closing twice is harmless.
      await other.close();
    });
  });
}
