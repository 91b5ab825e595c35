/**
 * A small RAG-style session for the library-backed providers' tests: one agent answers a question from what one
 * retrieval tool returned, with a reference answer on the session's attributes.
 */
import type { AgentCall, LLMCall, Message, Session, ToolCall } from '@mce/core';

export const QUESTION = 'When was the Eiffel Tower completed?';
export const ANSWER = 'The Eiffel Tower was completed in 1889. It is in Paris.';
export const RETRIEVED = 'The Eiffel Tower, in Paris, was completed in 1889 for the World Fair.';
export const REFERENCE = 'It was completed in 1889.';

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 };

export function ragSession(id = 'rag-1', options: { tools?: boolean; reference?: boolean } = {}): Session {
  const withTools = options.tools ?? true;
  const user: Message = { role: 'user', content: QUESTION };
  const answer: Message = { role: 'assistant', content: ANSWER };
  const agent: AgentCall = {
    kind: 'AgentCall', id: 'agent-1', name: 'invoke_agent guide', agentName: 'guide',
    startTime: 0, endTime: 100, status: 'ok', userInput: QUESTION, finalResponse: ANSWER,
  };
  const llm: LLMCall = {
    kind: 'LLMCall', id: 'llm-1', name: 'chat gpt-4o', parentId: 'agent-1', agentCallId: 'agent-1', startTime: 40,
    endTime: 50, status: 'ok', operation: 'chat', usage, inputMessages: [user], outputMessages: [answer],
    finishReasons: ['stop'], toolDefinitions: [],
  };
  const tool: ToolCall = {
    kind: 'ToolCall', id: 'tool-1', name: 'execute_tool search_docs', parentId: 'agent-1', agentCallId: 'agent-1',
    startTime: 10, endTime: 30, status: 'ok', toolName: 'search_docs', toolCallId: 'call_1',
    arguments: { query: 'Eiffel Tower completed' }, result: RETRIEVED,
  };
  return {
    kind: 'Session', id, startTime: 0, endTime: 100, traceIds: ['t1'], userInput: QUESTION, finalResponse: ANSWER,
    masCalls: [], agentCalls: [agent], taskCalls: [], llmCalls: [llm], toolCalls: withTools ? [tool] : [], mcpServers: [],
    ...(options.reference === false ? {} : { attributes: { reference: REFERENCE } }),
  };
}
