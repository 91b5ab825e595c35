/**
 * The hand-built multi-agent session (multi-agent-scenario.ts) in three dialects normalises to one session and
 * gives the same deterministic metric values. The committed JSONL files are the generator's output.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { MetricEngine, type Session } from '@mce/core';
import { DETERMINISTIC_METRICS } from '@mce/provider-native';
import { readSessions } from '../src/index.js';
import { dataFile, summarise, withoutRaw } from './helpers.js';
import { DIALECTS, FINAL_ANSWER, FLIGHT_SUMMARY, scenarioJsonl, SESSION_ID, TRACE_ID, USER_QUESTION, type Dialect } from './multi-agent-scenario.js';

const file = (d: Dialect) => dataFile(`multi-agent/${d}.jsonl`);
const sessions = {} as Record<Dialect, Session>;

beforeAll(async () => {
  for (const d of DIALECTS) {
    const r = await readSessions(file(d));
    expect(r.warnings).toEqual([]);
    expect(r.sessions).toHaveLength(1);
    sessions[d] = r.sessions[0]!;
  }
});

describe('multi-agent session in three dialects', () => {
  it('the committed files are the generator output; the README example is the current-GenAI one', () => {
    for (const d of DIALECTS) expect(readFileSync(file(d), 'utf8')).toBe(scenarioJsonl(d));
    const example = fileURLToPath(new URL('../../../examples/traces/multi-agent.jsonl', import.meta.url));
    expect(readFileSync(example, 'utf8')).toBe(scenarioJsonl('genai'));
  });

  it('all three normalise to the same session (raw attributes aside)', () => {
    const genai = withoutRaw(sessions.genai);
    expect(withoutRaw(sessions['genai-legacy'])).toEqual(genai);
    expect(withoutRaw(sessions.openinference)).toEqual(genai);
  });

  it('that session is the scenario', () => {
    const s = sessions.genai;
    expect(s.id).toBe(SESSION_ID);
    expect(s.traceIds).toEqual([TRACE_ID]);
    expect(s.serviceName).toBe('travel-assistant');
    expect(s.startTime).toBe(1764576000000);
    expect(s.endTime).toBe(1764576009000);
    expect(summarise(s)).toEqual({
      counts: { MASCall: 1, AgentCall: 3, TaskCall: 0, LLMCall: 6, ToolCall: 3 },
      // 820+1040+1210+1302+450+520, 12+38+25+61+48+30, 512+1024+1024
      tokens: { input: 5342, output: 214, cacheRead: 2560, total: 5556 },
      agents: ['triage', 'flight_agent', 'notifier'],
      transitions: ['triage -> flight_agent', 'flight_agent -> notifier'],
      tools: ['search_flights', 'book_flight', 'send_email'],
      llmAgents: ['triage', 'flight_agent', 'flight_agent', 'flight_agent', 'notifier', 'notifier'],
      toolAgents: ['flight_agent', 'flight_agent', 'notifier'],
      errors: ['book_flight'],
    });
    expect(s.userInput).toBe(USER_QUESTION);
    expect(s.finalResponse).toBe(FINAL_ANSWER);
    const [triage, flight, notifier] = s.agentCalls;
    expect(triage!.finalResponse).toBeUndefined(); // it only routes: {"next": "flight_agent"}
    expect(flight!.finalResponse).toBe(FLIGHT_SUMMARY);
    expect(notifier!.userInput).toBe(FLIGHT_SUMMARY);
    expect(s.masCalls[0]).toMatchObject({ id: 'a000000000000001', workflowName: 'travel_planner', userInput: USER_QUESTION, finalResponse: FINAL_ANSWER });

    const [search, book, email] = s.toolCalls;
    expect(search).toMatchObject({
      toolCallId: 'call_sf1',
      arguments: { from: 'CDG', to: 'JFK', date: '2026-12-01' },
      result: { flights: [{ flight: 'AF006', departs: '10:30' }, { flight: 'AF010', departs: '13:30' }] },
      mcp: { server: 'travel-mcp', kind: 'tool', method: 'tools/call' },
      status: 'unset',
    });
    expect(search!.definition?.name).toBe('search_flights');
    expect(book).toMatchObject({
      toolCallId: 'call_bf1',
      status: 'error',
      error: { type: 'SeatUnavailable', message: 'SeatUnavailable: no seats left on AF006' },
      mcp: { server: 'travel-mcp', kind: 'tool' },
    });
    expect(book!.result).toBeUndefined();
    expect(email).toMatchObject({ toolCallId: 'call_se1', result: { sent: true }, status: 'unset' });
    expect(email!.mcp).toBeUndefined();

    expect(s.mcpServers).toEqual([
      {
        name: 'travel-mcp',
        transport: 'stdio',
        tools: [
          expect.objectContaining({ name: 'search_flights', description: 'Search flights between two airports on a date.' }),
          expect.objectContaining({ name: 'book_flight', inputSchema: { type: 'object', properties: { flight: { type: 'string' } }, required: ['flight'] } }),
        ],
        resources: [],
        prompts: [],
      },
    ]);
    const third = s.llmCalls[2]!;
    expect(third.usage).toEqual({ inputTokens: 1210, outputTokens: 25, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 1235 });
    expect(third.inputMessages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(third.inputMessages[3]).toEqual({ role: 'tool', content: '{"flights":[{"flight":"AF006","departs":"10:30"},{"flight":"AF010","departs":"13:30"}]}', toolCallId: 'call_sf1' });
    expect(third.outputMessages).toEqual([{ role: 'assistant', content: '', toolCalls: [{ id: 'call_bf1', name: 'book_flight', arguments: { flight: 'AF006' } }] }]);
    expect(third).toMatchObject({ provider: 'openai', requestModel: 'gpt-4o-mini', responseModel: 'gpt-4o-mini-2024-07-18', finishReasons: ['tool_calls'] });
  });

  it('gives the same deterministic metric values in every dialect', async () => {
    process.env.MODEL_PRICES_REFRESH = 'false';
    const engine = new MetricEngine({ strategy: 'asyncio', maxWorkers: 2 });
    for (const m of DETERMINISTIC_METRICS) engine.registerMetric(m);
    const values = {} as Record<Dialect, Record<string, number>>;
    for (const d of DIALECTS) {
      const out = await engine.computeLoadedSession(sessions[d], { runId: 'dialects' });
      expect(out.failed).toEqual([]);
      values[d] = Object.fromEntries(out.results.map((r) => [`${r.name}@${r.level}:${r.measures}`, r.result]));
    }
    await engine.close();
    expect(Object.keys(values.genai).length).toBeGreaterThan(20);
    expect(values['genai-legacy']).toEqual(values.genai);
    expect(values.openinference).toEqual(values.genai);
    expect(values.genai[`TotalTokens@Session:${SESSION_ID}`]).toBe(5556);
    expect(values.genai[`LLMCallCount@Session:${SESSION_ID}`]).toBe(6);
    expect(values.genai[`ToolCallCount@Session:${SESSION_ID}`]).toBe(3);
  });
});
