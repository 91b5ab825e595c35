/** A small two-agent session with known durations, tokens and tool calls, for the sdk metrics' tests. */
import type { AgentCall, LLMCall, Session, ToolCall } from '@mce/core';

const usage = (total: number, reported = true): LLMCall['usage'] => ({
  inputTokens: total - 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: total,
  ...(reported ? {} : { reported: false }),
});

function agent(id: string, name: string, start: number, end: number): AgentCall {
  return { kind: 'AgentCall', id, name: `invoke_agent ${name}`, agentName: name, startTime: start, endTime: end, status: 'ok', userInput: `question for ${name}`, finalResponse: `answer of ${name}` };
}

function llm(id: string, parentId: string, start: number, seconds: number, total: number, reported = true): LLMCall {
  return {
    kind: 'LLMCall', id, name: 'chat gpt-4o', parentId, agentCallId: parentId, startTime: start, endTime: start + seconds * 1000, status: 'ok',
    operation: 'chat', responseModel: 'gpt-4o', usage: usage(total, reported), inputMessages: [{ role: 'user', content: 'hi' }],
    outputMessages: [{ role: 'assistant', content: 'hello' }], finishReasons: ['stop'], toolDefinitions: [],
  };
}

function tool(id: string, parentId: string, name: string, status: 'ok' | 'error' = 'ok'): ToolCall {
  return {
    kind: 'ToolCall', id, name: `execute_tool ${name}`, parentId, agentCallId: parentId, startTime: 1000, endTime: 2000, status,
    toolName: name, arguments: { q: name },
    ...(status === 'error' ? { error: { type: 'TimeoutError', message: 'timed out' } } : { result: `${name} result` }),
  };
}

/**
 * planner (a1): LLM calls of 2 s / 100 tokens and 12 s / 300 tokens, tools search and fetch (fetch failed);
 * writer (a2): one LLM call of 20 s / 600 tokens, no tool call.
 */
export function twoAgentSession(options: { unreportedUsage?: boolean } = {}): Session {
  return {
    kind: 'Session', id: 's1', startTime: 0, endTime: 60_000, traceIds: ['t1'], userInput: 'plan a trip', finalResponse: 'here is the plan',
    masCalls: [],
    agentCalls: [agent('a1', 'planner', 0, 30_000), agent('a2', 'writer', 30_000, 60_000)],
    taskCalls: [],
    llmCalls: [llm('l1', 'a1', 0, 2, 100), llm('l2', 'a1', 3000, 12, 300, !options.unreportedUsage), llm('l3', 'a2', 31_000, 20, 600)],
    toolCalls: [tool('t1', 'a1', 'search'), tool('t2', 'a1', 'fetch', 'error')],
    mcpServers: [],
  };
}
