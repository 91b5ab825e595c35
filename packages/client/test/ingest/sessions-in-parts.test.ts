/**
 * A session whose spans come in two trace exports, ingested by two separate runs into a real store (SQLite, and
 * PostgreSQL when it answers), against the same two files ingested in one run. The exports are real ClickHouse
 * fixtures split as a file exporter that rotates its file at time T splits them: the spans that ended before T in the
 * first file, the others (their parents among them) in the second. No fixture holds one call seen as two nested spans
 * (an LLM span in an LLM span, a tool span in a tool span of the same tool): that case is a hand-written OTLP export
 * of the usual shapes (LangChain around the OpenAI client, an MCP server's span), rotated the same way.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Call, Session } from '@mce/core';
import { needService, PG_URL } from '../../../../test-support/services.js';
import { MCEClient, defaultMceConfig, MISSING_PARENT_KEY, openStore, readSessions, type KnowledgeGraphStore } from '../../src/index.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';
import { fixture } from '../../../ingest/test/helpers.js';

const pgAvailable = await needService('postgres');
const dir = mkdtempSync(join(tmpdir(), 'mce-parts-'));
/** Every PostgreSQL store of this file lives in its own schema (files run in parallel on one server). */
const PREFIX = `mce_parts_${process.pid}`;
let n = 0;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!pgAvailable) return;
  const client = new pg.Client(PG_URL);
  await client.connect();
  const { rows } = await client.query<{ s: string }>('SELECT nspname AS s FROM pg_namespace WHERE nspname LIKE $1', [`${PREFIX}%`]);
  for (const { s } of rows) await client.query(`DROP SCHEMA "${s}" CASCADE`);
  await client.end();
});

type Row = { SpanId: string; Timestamp: string; Duration: number | string };
/** A row's end in epoch ms: `Timestamp` (UTC, `YYYY-MM-DD hh:mm:ss.ffffff` or ISO) plus `Duration` in ns. */
const endOf = (row: Row) => {
  const iso = row.Timestamp.replace(' ', 'T');
  return Date.parse(iso.endsWith('Z') ? iso : `${iso}Z`) + Number(row.Duration) / 1e6;
};

/** The fixture as two exports rotated at the end of span `at` (default: the median end): [ended before, the rest]. */
function rotated(name: string, at?: string): [string, string] {
  const rows = JSON.parse(readFileSync(fixture(`clickhouse-otel-traces/${name}`), 'utf8')) as Row[];
  const ends = rows.map(endOf);
  expect(ends.every(Number.isFinite)).toBe(true);
  const t = at ? endOf(rows.find((r) => r.SpanId === at)!) : [...ends].sort((a, b) => a - b)[Math.floor(rows.length / 2)]!;
  const files = [join(dir, `${++n}-first.json`), join(dir, `${n}-second.json`)] as [string, string];
  writeFileSync(files[0], JSON.stringify(rows.filter((_, i) => ends[i]! < t)));
  writeFileSync(files[1], JSON.stringify(rows.filter((_, i) => ends[i]! >= t)));
  return files;
}

const stores: Record<string, () => Promise<KnowledgeGraphStore>> = {
  SQLite: () => openStore(`sqlite:${join(dir, `store-${++n}.db`)}`),
  ...(pgAvailable ? { PostgreSQL: () => openStore(PG_URL, { schema: `${PREFIX}_${++n}` }) } : {}),
};

/** Each run as `mce ingest` runs it (MCEClient.ingest), one after the other into one store; the stored session. */
async function ingestRuns(open: () => Promise<KnowledgeGraphStore>, runs: readonly (readonly string[])[]): Promise<Session> {
  const store = await open();
  try {
    const ids = new Set<string>();
    for (const files of runs) {
      await using client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
      for (const id of (await client.ingest(files)).sessionIds) ids.add(id);
    }
    expect(ids.size).toBe(1);
    return (await store.getSession([...ids][0]!))!;
  } finally {
    await store.close();
  }
}

const byId = (a: Call, b: Call) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
/** A session up to order: calls by id, trace ids sorted (parts list them in the order the parts came). */
const unordered = (s: Session): Session => ({
  ...s,
  traceIds: [...s.traceIds].sort(),
  masCalls: [...s.masCalls].sort(byId),
  agentCalls: [...s.agentCalls].sort(byId),
  taskCalls: [...s.taskCalls].sort(byId),
  llmCalls: [...s.llmCalls].sort(byId),
  toolCalls: [...s.toolCalls].sort(byId),
});
const allCalls = (s: Session): Call[] => [...s.masCalls, ...s.agentCalls, ...s.taskCalls, ...s.llmCalls, ...s.toolCalls];
const links = (calls: readonly Call[]) => Object.fromEntries([...calls].sort(byId).map((c) => [c.id, [c.parentId, c.agentCallId, c.masCallId]]));

describe.each(Object.entries(stores))('a session in two trace exports, ingested by two runs (%s)', (_, open) => {
  it('LangGraph supervisor (a workflow span): one MAS call, every call linked across the parts, whichever part comes first', async () => {
    const [first, second] = rotated('langgraph_supervisor_research.json');
    const whole = await ingestRuns(open, [[first, second]]);
    for (const runs of [[[first], [second]], [[second], [first]]]) {
      const s = await ingestRuns(open, runs);
      // No phantom MAS call (id = trace id) for the part without the workflow span: the workflow is the only one.
      expect(s.masCalls.map((m) => [m.id, m.name, m.startTime, m.endTime])).toEqual([
        ['e4d14db5a21ad736', 'LangGraph.workflow', 1750455422820.967, 1750455428606.117],
      ]);
      // LLM and tool calls: parent, agent (by checkpoint namespace: the agents are roots of their own traces), MAS call.
      expect(links([...s.llmCalls, ...s.toolCalls])).toEqual({
        '2bcf34b74b03e7d4': ['cb3a5818ecd6febb', '33749b343b013301', 'e4d14db5a21ad736'],
        '3b28e2d279d126ce': ['b65526e16e6c1a6d', '29c66d5266fe29b8', 'e4d14db5a21ad736'],
        '40ac58e9691dadff': ['4bb8c82c5db45fea', '9a9817d19c207423', 'e4d14db5a21ad736'],
        a851c803922f4e81: ['3a2457f16e9dccae', '33749b343b013301', 'e4d14db5a21ad736'],
        fe091ae2ab4b92fb: ['98c60a651e8005d6', '33749b343b013301', 'e4d14db5a21ad736'],
      });
      // Tasks whose parent span was in the other part.
      const tasks = links(s.taskCalls);
      expect(tasks['62898fafb748442f']).toEqual(['e4d14db5a21ad736', undefined, 'e4d14db5a21ad736']);
      expect(tasks['8e6934a9e8344fe7']).toEqual(['1772578a55f87769', '33749b343b013301', 'e4d14db5a21ad736']);
      expect(tasks['98c60a651e8005d6']).toEqual(['1772578a55f87769', '33749b343b013301', 'e4d14db5a21ad736']);
      expect(allCalls(s).filter((c) => c.attributes?.[MISSING_PARENT_KEY] !== undefined)).toEqual([]);
      expect(s.agentCalls.map((a) => [a.agentName, a.masCallId, a.userInput])).toEqual(
        expect.arrayContaining([['research', 'e4d14db5a21ad736', 'who was the 31st president of the united states?']]),
      );
      // All in all: the session ingested at once.
      expect(unordered(s)).toStrictEqual(unordered(whole));
    }
  });

  it('AutoGen under a LangGraph moderator (no workflow span): each trace one implicit MAS call, named by its root, whichever part comes first', async () => {
    // Rotated at the end of the moderator's first RunnableSequence.workflow span: its LLM call and tasks ended before,
    // in the first export; the workflow span, the agent (the trace's root) and the rest of the run in the second.
    const [first, second] = rotated('autogen_langgraph_moderator.json', '1e870e56cc5e6a4c');
    const whole = await ingestRuns(open, [[first, second]]);
    for (const runs of [[[first], [second]], [[second], [first]]]) {
      const s = await ingestRuns(open, runs);
      expect(s.masCalls).toHaveLength(8);
      expect(s.masCalls.find((m) => m.id === '78c23cf39c9b08cc62623b1c75ae3e6a')).toStrictEqual({
        kind: 'MASCall',
        id: '78c23cf39c9b08cc62623b1c75ae3e6a',
        traceId: '78c23cf39c9b08cc62623b1c75ae3e6a',
        name: 'moderator-agent.invoke.agent', // the trace's root span, not the first span of the part without it
        startTime: 1754408410049.0962,
        endTime: 1754408411511.331, // both parts' window
        status: 'unset',
        workflowName: 'moderator-agent.invoke',
        userInput: whole.masCalls.find((m) => m.id === '78c23cf39c9b08cc62623b1c75ae3e6a')!.userInput!,
      });
      expect(links(s.llmCalls)['4fd34aedfd53f8e3']).toEqual(['1e870e56cc5e6a4c', '84660700939efc15', '78c23cf39c9b08cc62623b1c75ae3e6a']);
      expect(s.taskCalls.find((t) => t.id === '1e870e56cc5e6a4c')).toMatchObject({ parentId: '84660700939efc15', agentCallId: '84660700939efc15' });
      // The agent's conversation holds the LLM call of the other part.
      expect(s.agentCalls.find((a) => a.id === '84660700939efc15')?.userInput).toMatch(/^\nAgent list:\n- noa-web-surfer-assistant/);
      expect(allCalls(s).filter((c) => c.attributes?.[MISSING_PARENT_KEY] !== undefined)).toEqual([]);
      expect(unordered(s)).toStrictEqual(unordered(whole));
    }
  });

  it('a parent that is no call (an AutoGen plumbing span of the other part) cannot be linked: the call keeps its mark', async () => {
    // Rotated at the end of the `autogen process` span above the first web-surfer LLM call: the LLM call ended before
    // it; that span and the trace's root (both plumbing, never stored) are in the second export, which holds no call
    // of that trace.
    const [first, second] = rotated('autogen_langgraph_moderator.json', '65e6e2dee6036921');
    for (const runs of [[[first], [second]], [[second], [first]]]) {
      const s = await ingestRuns(open, runs);
      const llm = s.llmCalls.find((c) => c.id === 'b05c0f04e8854056')!;
      expect([llm.parentId, llm.agentCallId, llm.masCallId, llm.attributes?.[MISSING_PARENT_KEY]]).toEqual([
        undefined, undefined, '4fcd1f598d0386f4a75c10a13a03e874', '65e6e2dee6036921',
      ]);
      // The trace's implicit MAS call is made from its only call: named by it, over its window (read at once: the
      // root's name and window).
      expect(s.masCalls.find((m) => m.id === '4fcd1f598d0386f4a75c10a13a03e874')).toMatchObject({
        name: 'openai.chat', startTime: 1754408412566.5393, endTime: 1754408419058.0867, attributes: { [MISSING_PARENT_KEY]: '65e6e2dee6036921' },
      });
    }
  });
});

/** OTLP JSON attribute values: strings, integers, lists of strings. */
const otlpValue = (v: string | number | string[]) =>
  typeof v === 'number' ? { intValue: String(v) } : Array.isArray(v) ? { arrayValue: { values: v.map((x) => ({ stringValue: x })) } } : { stringValue: v };
const NEST_TRACE = '5eed5eed5eed5eed5eed5eed5eed5eed';
const NEST_T0 = 1_767_225_600_000n; // ms
type NestSpan = { id: string; parent?: string; name: string; start: number; end: number; kind?: string; attributes: Record<string, string | number | string[]> };
/** One OTLP export of `service`: spans of the trace, times in ms after NEST_T0. */
function otlpExport(service: string, spans: readonly NestSpan[]): string {
  const file = join(dir, `${++n}-${service}.json`);
  const ns = (ms: number) => String((NEST_T0 + BigInt(ms)) * 1_000_000n);
  writeFileSync(file, JSON.stringify({
    resourceSpans: [{
      resource: { attributes: [{ key: 'service.name', value: otlpValue(service) }] },
      scopeSpans: [{
        scope: { name: 'test' },
        spans: spans.map((sp) => ({
          traceId: NEST_TRACE, spanId: sp.id, ...(sp.parent ? { parentSpanId: sp.parent } : {}), name: sp.name, kind: sp.kind ?? 'SPAN_KIND_INTERNAL',
          startTimeUnixNano: ns(sp.start), endTimeUnixNano: ns(sp.end), attributes: Object.entries(sp.attributes).map(([key, v]) => ({ key, value: otlpValue(v) })),
        })),
      }],
    }],
  }));
  return file;
}

describe.each(Object.entries(stores))('one call in two spans of two exports, ingested by separate runs (%s)', (_, open) => {
  // A LangChain agent: its ChatOpenAI.chat spans wrap the OpenAI client's spans; its execute_tool span wraps the MCP
  // server's span of the same tool, exported by the MCP server, which runs an LLM call of its own. The app's file
  // exporter rotated at the end of the first ChatOpenAI.chat span: the OpenAI client's span inside it ended before, in
  // the first file; the LangChain span in the second.
  const l1 = 'aaaa000000000003';
  const t = 'aaaa000000000005';
  const chat = (id: string, parent: string, start: number, end: number, input: number, output: number, user: string) => ({
    id, parent, name: 'ChatOpenAI.chat', start, end,
    attributes: { 'llm.request.type': 'chat', 'gen_ai.system': 'Langchain', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.prompt_tokens': input, 'gen_ai.usage.completion_tokens': output, 'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': user },
  });
  const client = (id: string, parent: string, start: number, end: number, input: number, output: number, cached: number, reply: string, finish: string) => ({
    id, parent, name: 'openai.chat', start, end, kind: 'SPAN_KIND_CLIENT',
    attributes: {
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output, 'gen_ai.usage.cache_read.input_tokens': cached, 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: reply }]),
      'gen_ai.response.finish_reasons': [finish],
    },
  });
  const app: NestSpan[] = [
    { id: 'aaaa000000000001', name: 'invoke_workflow weather', start: 0, end: 1000, attributes: { 'gen_ai.operation.name': 'invoke_workflow' } },
    { id: 'aaaa000000000002', parent: 'aaaa000000000001', name: 'invoke_agent planner', start: 10, end: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' } },
    chat(l1, 'aaaa000000000002', 20, 220, 1000, 50, 'Weather in Paris?'),
    client('aaaa000000000004', l1, 25, 215, 1000, 50, 800, '', 'tool_calls'),
    {
      id: t, parent: 'aaaa000000000002', name: 'execute_tool get_weather', start: 300, end: 600,
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1', 'gen_ai.tool.call.arguments': '{"city":"Paris"}' },
    },
    chat('aaaa000000000006', 'aaaa000000000002', 650, 850, 1100, 12, 'Weather in Paris?'),
    client('aaaa000000000007', 'aaaa000000000006', 655, 845, 1100, 12, 1024, 'Clear skies in Paris.', 'stop'),
  ];
  const server: NestSpan[] = [
    {
      id: 'bbbb000000000001', parent: t, name: 'tools/call get_weather', start: 310, end: 590, kind: 'SPAN_KIND_SERVER',
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.result': '{"sky":"clear"}' },
    },
    {
      id: 'bbbb000000000002', parent: 'bbbb000000000001', name: 'chat gpt-4o-mini', start: 320, end: 580,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 20, 'gen_ai.usage.output_tokens': 5 },
    },
  ];
  const rotatedAt = 220; // the end of the first ChatOpenAI.chat span: the spans that ended before it, the others
  const first = otlpExport('weather-app', app.filter((sp) => sp.end < rotatedAt));
  const second = otlpExport('weather-app', app.filter((sp) => sp.end >= rotatedAt));
  const mcp = otlpExport('weather-mcp', server);
  const tokens = (s: Session) => s.llmCalls.reduce((sum, c) => sum + c.usage.totalTokens, 0);

  it('the parts as read alone: the inner spans are calls of their own, marked with their outer span', async () => {
    const parts = [await readSessions(first), await readSessions(mcp)].map((r) => r.sessions[0]!);
    expect(parts[0]!.llmCalls.map((c) => [c.id, c.usage.totalTokens, c.attributes?.[MISSING_PARENT_KEY]])).toEqual([['aaaa000000000004', 1050, l1]]);
    expect(parts[1]!.toolCalls.map((c) => [c.id, c.attributes?.[MISSING_PARENT_KEY]])).toEqual([['bbbb000000000001', t]]);
  });

  it('every order of the three runs stores the session one run stores: one call per pair, its tokens once', async () => {
    const whole = await ingestRuns(open, [[first, second, mcp]]);
    expect(whole.llmCalls.map((c) => [c.id, c.provider, c.usage.totalTokens, c.usage.cacheReadTokens])).toEqual([
      [l1, 'openai', 1050, 800],
      ['bbbb000000000002', undefined, 25, 0],
      ['aaaa000000000006', 'openai', 1112, 1024],
    ]);
    expect(tokens(whole)).toBe(2187);
    expect(whole.toolCalls).toMatchObject([{ id: t, toolCallId: 'call_1', arguments: { city: 'Paris' }, result: { sky: 'clear' }, mcp: { server: 'weather-mcp', method: 'tools/call' } }]);
    const orders = [[first, second, mcp], [second, first, mcp], [first, mcp, second], [second, mcp, first], [mcp, first, second], [mcp, second, first]];
    for (const order of orders) {
      const s = await ingestRuns(open, order.map((file) => [file]));
      expect(tokens(s)).toBe(2187); // 3,237 before: the first model call counted twice
      expect(links(s.llmCalls)).toEqual({
        [l1]: ['aaaa000000000002', 'aaaa000000000002', 'aaaa000000000001'],
        aaaa000000000006: ['aaaa000000000002', 'aaaa000000000002', 'aaaa000000000001'],
        bbbb000000000002: [t, 'aaaa000000000002', 'aaaa000000000001'], // below the MCP server's span, folded into t
      });
      expect(allCalls(s).filter((c) => c.attributes?.[MISSING_PARENT_KEY] !== undefined)).toEqual([]);
      // All in all the session one run stores; the session's service and resource are those of the export stored
      // first (see ingestion.md, "Sessions in parts").
      const { serviceName, attributes, ...rest } = unordered(s);
      const { serviceName: _s, attributes: _a, ...expected } = unordered(whole);
      expect(rest).toStrictEqual(expected);
      expect(serviceName).toBe(order[0] === mcp ? 'weather-mcp' : 'weather-app');
      expect(attributes).toEqual({ 'service.name': serviceName });
    }
  });
});

describe('mce ingest, run once per export', () => {
  it('stores the session the one run over both exports stores', async () => {
    const [first, second] = rotated('langgraph_supervisor_research.json');
    const stored = async (...runs: string[][]) => {
      const ws = tempWorkspace();
      for (const files of runs) expect((await runCli(['ingest', ...files], ws)).code).toBe(0);
      const store = await openStore(ws.env.MCE_STORE_URL!);
      try {
        return (await store.getSession('multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606'))!;
      } finally {
        await store.close();
        rmSync(ws.dir, { recursive: true, force: true });
      }
    };
    const whole = await stored([first, second]);
    expect(whole.masCalls).toHaveLength(1);
    expect(unordered(await stored([second], [first]))).toStrictEqual(unordered(whole));
  });
});
