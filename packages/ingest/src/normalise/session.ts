/**
 * The Session from its calls: its window is its elements' (else its spans'), its traces in first-seen order, its
 * service and resource attributes the first span's, its conversation ends those of all its LLM calls.
 */
import type { Session } from '@mce/core';
import { finalAssistantResponse, firstUserInput } from '../conversation.js';
import type { SpanRecord } from '../span.js';
import { byStart, ifDefined, maxOf, minOf, type Context } from './node.js';
import { serviceNameOf } from './service-name.js';

/** The session's elements, as the Session holds them (`llmCalls` in start order already). */
export type SessionCalls = Pick<Session, 'masCalls' | 'agentCalls' | 'taskCalls' | 'llmCalls' | 'toolCalls' | 'mcpServers'>;

/** `ordered`: the session's spans in start order; `spans`: those that became nodes (the window of a session without calls). */
export function assembleSession(ctx: Context, calls: SessionCalls, ordered: readonly SpanRecord[], spans: readonly SpanRecord[]): Session {
  const { masCalls, agentCalls, taskCalls, llmCalls, toolCalls } = calls;
  const elements = [...masCalls, ...agentCalls, ...taskCalls, ...llmCalls, ...toolCalls];
  const timed: readonly { startTime: number; endTime: number }[] = elements.length ? elements : spans;
  const first = ordered[0];
  const traceIds = [...new Set(ordered.map((s) => s.traceId))]; // first-seen order
  const serviceName = serviceNameOf(first, ctx);
  return {
    kind: 'Session',
    id: ctx.sessionId,
    startTime: timed.length ? minOf(timed, (e) => e.startTime) : 0,
    endTime: timed.length ? maxOf(timed, (e) => e.endTime) : 0,
    ...ifDefined('serviceName', serviceName),
    traceIds,
    ...ifDefined('userInput', firstUserInput(llmCalls)),
    ...ifDefined('finalResponse', finalAssistantResponse(llmCalls)),
    masCalls: masCalls.sort(byStart),
    agentCalls: agentCalls.sort(byStart),
    taskCalls: taskCalls.sort(byStart),
    llmCalls,
    toolCalls: toolCalls.sort(byStart),
    mcpServers: calls.mcpServers,
    ...ifDefined('attributes', first && Object.keys(first.resource).length ? first.resource : undefined),
  };
}
