/**
 * Small ontology sessions for the worker tests: one MAS call, two agents, a task, three LLM calls and two tool calls
 * (one failing) — enough for every deterministic metric to produce results.
 */
import type { AgentCall, LLMCall, Session, ToolCall } from '@mce/core';

function llm(sessionId: string, n: number, start: number, end: number, inputTokens: number, agent: string): LLMCall {
  return {
    kind: 'LLMCall',
    id: `${sessionId}-l${n}`,
    parentId: `${sessionId}-${agent}`,
    agentCallId: `${sessionId}-${agent}`,
    masCallId: `${sessionId}-m1`,
    name: 'chat gpt-4o',
    startTime: start,
    endTime: end,
    status: 'ok',
    operation: 'chat',
    requestModel: 'gpt-4o',
    usage: { inputTokens, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: inputTokens + 10 },
    inputMessages: [{ role: 'user', content: 'hi' }],
    outputMessages: [{ role: 'assistant', content: 'hello' }],
    finishReasons: ['stop'],
    toolDefinitions: [],
  };
}

function tool(sessionId: string, n: number, start: number, end: number, toolName: string, failed: boolean): ToolCall {
  return {
    kind: 'ToolCall',
    id: `${sessionId}-t${n}`,
    parentId: `${sessionId}-a1`,
    agentCallId: `${sessionId}-a1`,
    masCallId: `${sessionId}-m1`,
    name: `execute_tool ${toolName}`,
    startTime: start,
    endTime: end,
    status: failed ? 'error' : 'ok',
    toolName,
  };
}

function agent(sessionId: string, n: number, start: number, end: number, agentName: string): AgentCall {
  return {
    kind: 'AgentCall',
    id: `${sessionId}-a${n}`,
    parentId: `${sessionId}-m1`,
    masCallId: `${sessionId}-m1`,
    name: `invoke_agent ${agentName}`,
    startTime: start,
    endTime: end,
    status: 'ok',
    agentName,
  };
}

export function testSession(id: string, index = 0): Session {
  const t = 1_700_000_000_000 + index * 1000;
  return {
    kind: 'Session',
    id,
    startTime: t,
    endTime: t + 100,
    traceIds: [`trace-${id}`],
    masCalls: [{ kind: 'MASCall', id: `${id}-m1`, name: 'workflow', startTime: t, endTime: t + 100, status: 'ok' }],
    agentCalls: [agent(id, 1, t, t + 60, 'planner'), agent(id, 2, t + 60, t + 100, 'writer')],
    taskCalls: [{ kind: 'TaskCall', id: `${id}-k1`, parentId: `${id}-a1`, agentCallId: `${id}-a1`, masCallId: `${id}-m1`, name: 'task', taskName: 'plan', startTime: t + 5, endTime: t + 25, status: 'ok' }],
    llmCalls: [llm(id, 1, t, t + 10, 100, 'a1'), llm(id, 2, t + 10, t + 40, 200, 'a1'), llm(id, 3, t + 60, t + 90, 50, 'a2')],
    toolCalls: [tool(id, 1, t + 40, t + 45, 'search', false), tool(id, 2, t + 45, t + 60, 'fetch', true)],
    mcpServers: [],
  };
}
