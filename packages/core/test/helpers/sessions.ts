import type { AgentCall, LLMCall, Session, ToolCall } from '@mce/core';
import { emptyUsage } from '@mce/core';

function llm(id: string, start: number, end: number, inputTokens: number, agentCallId: string): LLMCall {
  return {
    kind: 'LLMCall',
    id,
    agentCallId,
    masCallId: 'm1',
    name: 'chat gpt-4o',
    startTime: start,
    endTime: end,
    status: 'ok',
    operation: 'chat',
    requestModel: 'gpt-4o',
    usage: { ...emptyUsage(), inputTokens, outputTokens: 10, totalTokens: inputTokens + 10 },
    inputMessages: [{ role: 'user', content: 'hi' }],
    outputMessages: [{ role: 'assistant', content: 'hello' }],
    finishReasons: ['stop'],
    toolDefinitions: [],
  };
}

function tool(id: string, start: number, end: number, toolName: string, failed: boolean): ToolCall {
  return {
    kind: 'ToolCall',
    id,
    agentCallId: 'a1',
    masCallId: 'm1',
    name: `execute_tool ${toolName}`,
    startTime: start,
    endTime: end,
    status: failed ? 'error' : 'ok',
    toolName,
  };
}

function agent(id: string, start: number, end: number, agentName: string): AgentCall {
  return { kind: 'AgentCall', id, masCallId: 'm1', name: `invoke_agent ${agentName}`, startTime: start, endTime: end, status: 'ok', agentName };
}

/**
 * Session `id`: MAS call m1 [0, 100]; agents a1 planner [0, 60], a2 writer [60, 100]; task k1 [5, 25];
 * LLM calls l1 [0, 10] 100 in, l2 [10, 40] 200 in, l3 [60, 90] 50 in; tools t1 search [40, 45] ok, t2 fetch [45, 60] error.
 * Durations: LLM 10, 30, 30 (mean 70/3); tools 5, 15.
 */
export function sampleSession(id = 's1', offset = 0): Session {
  const shift = <T extends { startTime: number; endTime: number }>(x: T): T => ({
    ...x,
    startTime: x.startTime + offset,
    endTime: x.endTime + offset,
  });
  return {
    kind: 'Session',
    id,
    startTime: offset,
    endTime: 100 + offset,
    traceIds: ['t'],
    masCalls: [shift({ kind: 'MASCall', id: `${id}-m1`, name: 'workflow', startTime: 0, endTime: 100, status: 'ok' })],
    agentCalls: [agent(`${id}-a1`, 0, 60, 'planner'), agent(`${id}-a2`, 60, 100, 'writer')].map(shift),
    taskCalls: [shift({ kind: 'TaskCall', id: `${id}-k1`, name: 'task', taskName: 'plan', startTime: 5, endTime: 25, status: 'ok' })],
    llmCalls: [
      llm(`${id}-l1`, 0, 10, 100, `${id}-a1`),
      llm(`${id}-l2`, 10, 40, 200, `${id}-a1`),
      llm(`${id}-l3`, 60, 90, 50, `${id}-a2`),
    ].map(shift),
    toolCalls: [tool(`${id}-t1`, 40, 45, 'search', false), tool(`${id}-t2`, 45, 60, 'fetch', true)].map(shift),
    mcpServers: [],
  };
}
