import type { Call, Session } from './types.js';

/** Every call of the session, level by level (MAS, agent, task, LLM, tool calls), each list in its own order. */
export function allCalls(session: Session): Call[] {
  return [...session.masCalls, ...session.agentCalls, ...session.taskCalls, ...session.llmCalls, ...session.toolCalls];
}
