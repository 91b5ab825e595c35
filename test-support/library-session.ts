/**
 * A small RAG-style session for the library-backed providers' tests: one agent answers a question from what one
 * retrieval tool returned, with a reference answer on the session's attributes.
 */
import { isSkip, type AgentCall, type Element, type LLMCall, type Message, type Metric, type MetricContext, type MetricValue, type OntologyLevel, type Session, type ToolCall } from '@mce/core';

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

/** A metric's context on `session` at `level`, with no earlier results. */
export const metricContext = (session: Session, level: OntologyLevel, options: Record<string, unknown> = {}): MetricContext => ({
  session, level, options, results: { get: () => undefined, all: () => [] },
});

/** The element a test measures at `level`: the session, its first agent call or its first LLM call. */
export const elementAt = (session: Session, level: OntologyLevel): Element =>
  level === 'LLMCall' ? session.llmCalls[0]! : level === 'AgentCall' ? session.agentCalls[0]! : session;

/** The metric's value at `level` (a skip is thrown, so a test never reads one as a score). */
export async function valueAt(metric: Metric, session: Session, level: OntologyLevel = 'Session', options: Record<string, unknown> = {}): Promise<MetricValue> {
  const outcome = await metric.compute(elementAt(session, level), metricContext(session, level, options));
  if (isSkip(outcome)) throw new Error(`skipped: ${outcome.skipped}`);
  return outcome;
}

/** The error the metric's computation at `level` fails with; throws when it does not fail. */
export async function failureAt(metric: Metric, session: Session, level: OntologyLevel = 'Session', options: Record<string, unknown> = {}): Promise<Error> {
  try {
    await metric.compute(elementAt(session, level), metricContext(session, level, options));
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the computation to fail');
}
