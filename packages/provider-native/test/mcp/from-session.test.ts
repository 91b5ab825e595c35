/** Reading MCP interactions out of ingested sessions: turns, agent scope, in-band errors. */
import { describe, expect, it } from 'vitest';
import type { Session, ToolCall } from '@mce/core';
import { agentInteraction, isMcpCall, mcpCallRecord, renderInteraction, renderVisible, sessionConversation, turnInteraction } from '@mce/provider-native';
import { REPLY1, REPLY2, TURN1, TURN2, WEATHER_SERVER, weatherSession } from './support/mcp-session.js';

describe('sessionConversation', () => {
  it('splits the session into user turns from the LLM calls’ histories, with each turn’s calls and reply', () => {
    const c = sessionConversation(weatherSession());
    expect(c.turns.map((t) => [t.request, t.output, t.calls.map((x) => x.name)])).toEqual([
      [TURN1, REPLY1, ['get_forecast']],
      [TURN2, REPLY2, ['get_air_quality']],
    ]);
    const second = turnInteraction(c, 1);
    expect(second.priorContext).toContain(TURN1);
    expect(second.priorContext).toContain(REPLY1);
    expect(turnInteraction(c, 0).priorContext).toBeUndefined();
  });

  it('shows a later turn the earlier primitives\' results as context, but the visible rendering only what the user saw', () => {
    const second = turnInteraction(sessionConversation(weatherSession()), 1);
    expect(second.priorContext).toContain('"sky":"sunny"'); // arguments may draw on an earlier result
    expect(second.priorVisible).toBe(`${TURN1}\n${REPLY1}`);
    const visible = renderVisible(second);
    expect(visible).toContain(REPLY1);
    expect(visible).not.toContain('"sky"'); // MCPTaskCompletion judges what the user could see, not the raw result
    expect(renderInteraction(second)).toContain('"sky":"sunny"');
  });

  it('a repeated user text still starts a new turn', () => {
    const s = weatherSession();
    const llm = s.llmCalls.map((c) => ({ ...c, inputMessages: c.inputMessages.map((m) => (m.role === 'user' ? { ...m, content: 'yes' } : m)) }));
    expect(sessionConversation({ ...s, llmCalls: llm }).turns.map((t) => t.request)).toEqual(['yes', 'yes']);
  });

  it('falls back to MAS calls, then to the session’s input and final response', () => {
    const s = weatherSession();
    const mas = {
      ...s,
      llmCalls: [],
      masCalls: [
        { kind: 'MASCall' as const, id: 'm1', name: 'run', startTime: 0, endTime: 50, status: 'ok' as const, userInput: 'a', finalResponse: 'A' },
        { kind: 'MASCall' as const, id: 'm2', name: 'run', startTime: 100, endTime: 150, status: 'ok' as const, userInput: 'b', finalResponse: 'B' },
      ],
    };
    expect(sessionConversation(mas).turns.map((t) => [t.request, t.output, t.calls.length])).toEqual([['a', 'A', 1], ['b', 'B', 1]]);
    const bare: Session = { ...s, llmCalls: [], masCalls: [] };
    expect(sessionConversation(bare).turns).toEqual([{ request: TURN1, output: REPLY2, calls: expect.any(Array) }]);
  });
});

describe('MCP calls', () => {
  const base = weatherSession().toolCalls[0]!;
  it('are the calls marked MCP at ingestion, or to a tool an available server offers', () => {
    const plain: ToolCall = { ...base, mcp: undefined, toolName: 'web_search' };
    expect(isMcpCall(base, [])).toBe(true);
    expect(isMcpCall(plain, [WEATHER_SERVER])).toBe(false);
    expect(isMcpCall({ ...plain, toolName: 'get_forecast' }, [WEATHER_SERVER])).toBe(true);
  });
  it('carry errors from the status or from an in-band isError result', () => {
    expect(mcpCallRecord({ ...base, status: 'error', error: { message: 'boom' } }).error).toBe('boom');
    const inBand = { ...base, result: { isError: true, content: [{ type: 'text', text: 'city not found' }] } };
    expect(mcpCallRecord(inBand).error).toBe('city not found');
    expect(mcpCallRecord(base)).toEqual({ server: 'weather', kind: 'tool', name: 'get_forecast', arguments: { city: 'Lisbon', days: 3 }, result: { days: [{ high: 21, sky: 'sunny' }] } });
  });
  it('of an agent are those whose nearest agent call is it', () => {
    const s = weatherSession();
    const other = { ...s.toolCalls[1]!, agentCallId: 'agent-2' };
    const i = agentInteraction({ ...s, toolCalls: [s.toolCalls[0]!, other] }, s.agentCalls[0]!);
    expect(i.calls.map((c) => c.name)).toEqual(['get_forecast']);
    // the agent's LLM calls saw both user turns: it is judged on both requests
    expect(i.request).toBe(`${TURN1}\n${TURN2}`);
  });
  it('of an agent are in start-time order, a call without a valid start time last', () => {
    const s = weatherSession();
    const at = (city: string, startTime: number): ToolCall => ({ ...s.toolCalls[0]!, id: city, arguments: { city }, startTime });
    const i = agentInteraction({ ...s, toolCalls: [at('late', 30), at('unknown', NaN), at('early', 10)] }, s.agentCalls[0]!);
    expect(i.calls.map((c) => (c.arguments as { city: string }).city)).toEqual(['early', 'late', 'unknown']);
  });
});
