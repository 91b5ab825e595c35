/**
 * A small booking session for judge tests: one agent, two LLM calls (the second re-sends the history), one tool call
 * whose result comes back as a tool message.
 */
import type { AgentCall, LLMCall, Message, Session, ToolCall } from '@mce/core';

export const USER_INPUT = 'Book a train from Paris to Lyon tomorrow at 9am';
export const FINAL_RESPONSE = 'Booked TGV 6601 leaving Paris at 09:04, arriving Lyon 11:00.';
export const TOOL_RESULT = { trains: [{ id: 'TGV 6601', departs: '09:04', arrives: '11:00' }] };

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 };

export function bookingSession(id = 'booking-1'): Session {
  const system: Message = { role: 'system', content: 'You book train tickets.' };
  const user: Message = { role: 'user', content: USER_INPUT };
  const askTool: Message = {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_1', name: 'search_trains', arguments: { from: 'Paris', to: 'Lyon', time: '09:00' } }],
  };
  const toolMessage: Message = { role: 'tool', content: JSON.stringify(TOOL_RESULT), toolCallId: 'call_1', name: 'search_trains' };
  const answer: Message = { role: 'assistant', content: FINAL_RESPONSE };
  const agent: AgentCall = {
    kind: 'AgentCall', id: 'agent-1', name: 'invoke_agent planner', agentName: 'planner',
    startTime: 0, endTime: 100, status: 'ok', userInput: USER_INPUT, finalResponse: FINAL_RESPONSE,
  };
  const llm = (callId: string, start: number, input: Message[], output: Message[]): LLMCall => ({
    kind: 'LLMCall', id: callId, name: 'chat gpt-4o', parentId: 'agent-1', agentCallId: 'agent-1', startTime: start,
    endTime: start + 9, status: 'ok', operation: 'chat', usage, inputMessages: input, outputMessages: output,
    finishReasons: ['stop'], toolDefinitions: [],
  });
  const tool: ToolCall = {
    kind: 'ToolCall', id: 'tool-1', name: 'execute_tool search_trains', parentId: 'agent-1', agentCallId: 'agent-1',
    startTime: 21, endTime: 30, status: 'ok', toolName: 'search_trains', toolCallId: 'call_1',
    arguments: { from: 'Paris', to: 'Lyon', time: '09:00' }, result: TOOL_RESULT,
    definition: { name: 'search_trains', description: 'Finds trains between two stations' },
  };
  return {
    kind: 'Session', id, startTime: 0, endTime: 100, traceIds: ['t1'], userInput: USER_INPUT, finalResponse: FINAL_RESPONSE,
    masCalls: [], agentCalls: [agent], taskCalls: [],
    llmCalls: [llm('llm-1', 10, [system, user], [askTool]), llm('llm-2', 31, [system, user, askTool, toolMessage], [answer])],
    toolCalls: [tool], mcpServers: [],
  };
}

export function emptySession(id = 'empty-1'): Session {
  return {
    kind: 'Session', id, startTime: 0, endTime: 0, traceIds: [], masCalls: [], agentCalls: [], taskCalls: [],
    llmCalls: [], toolCalls: [], mcpServers: [],
  };
}
