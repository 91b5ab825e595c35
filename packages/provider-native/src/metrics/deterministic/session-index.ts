import type { AgentCall, Call, Element, LLMCall, OntologyLevel, Session, ToolCall } from '@mce/core';

/**
 * Per-session lookups the deterministic metrics share, built once per session object (sessions are treated as
 * immutable while they are being computed) so a metric at the AgentCall level reads its calls from a map instead of
 * filtering the whole session for every agent call.
 *
 * Attribution: a call belongs to the MASCall named by its `masCallId` and to the AgentCall named by its
 * `agentCallId` (its nearest enclosing agent call). Calls of a nested agent call are attributed to that nested
 * agent call, not to its parent as well.
 */
export interface SessionIndex {
  readonly llmByAgent: ReadonlyMap<string, LLMCall[]>;
  readonly llmByMas: ReadonlyMap<string, LLMCall[]>;
  readonly toolByAgent: ReadonlyMap<string, ToolCall[]>;
  readonly toolByMas: ReadonlyMap<string, ToolCall[]>;
  readonly agentByAgent: ReadonlyMap<string, AgentCall[]>;
  readonly agentByMas: ReadonlyMap<string, AgentCall[]>;
  readonly agentById: ReadonlyMap<string, AgentCall>;
  /** Every agent call of the session (nested ones included), by start time; ties keep the session's order. */
  readonly agentSequence: readonly AgentCall[];
  /**
   * Earliest start and latest end over every element below the session with finite times (`elements` of them;
   * `ignored` had a missing/NaN time); undefined when no element has valid times.
   */
  readonly span: { start: number; end: number; elements: number; ignored: number } | undefined;
}

const cache = new WeakMap<Session, SessionIndex>();

function groupBy<T extends Call>(calls: readonly T[], key: (call: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const call of calls) {
    const k = key(call);
    if (k === undefined) continue;
    const group = groups.get(k);
    if (group) group.push(call);
    else groups.set(k, [call]);
  }
  return groups;
}

/** Sorted copy by start time (Array.prototype.sort is stable: ties keep their order). */
export function byStartTime<T extends { startTime: number }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.startTime - b.startTime);
}

function elementSpan(session: Session): SessionIndex['span'] {
  let start = Infinity;
  let end = -Infinity;
  let elements = 0;
  let ignored = 0;
  for (const list of [session.masCalls, session.agentCalls, session.taskCalls, session.llmCalls, session.toolCalls]) {
    for (const call of list as readonly Call[]) {
      if (!Number.isFinite(call.startTime) || !Number.isFinite(call.endTime)) {
        ignored += 1;
        continue;
      }
      if (call.startTime < start) start = call.startTime;
      if (call.endTime > end) end = call.endTime;
      elements += 1;
    }
  }
  return elements === 0 ? undefined : { start, end, elements, ignored };
}

export function sessionIndex(session: Session): SessionIndex {
  let index = cache.get(session);
  if (!index) {
    index = {
      llmByAgent: groupBy(session.llmCalls, (c) => c.agentCallId),
      llmByMas: groupBy(session.llmCalls, (c) => c.masCallId),
      toolByAgent: groupBy(session.toolCalls, (c) => c.agentCallId),
      toolByMas: groupBy(session.toolCalls, (c) => c.masCallId),
      agentByAgent: groupBy(session.agentCalls, (c) => c.agentCallId),
      agentByMas: groupBy(session.agentCalls, (c) => c.masCallId),
      agentById: new Map(session.agentCalls.map((c) => [c.id, c])),
      agentSequence: byStartTime(session.agentCalls),
      span: elementSpan(session),
    };
    cache.set(session, index);
  }
  return index;
}

const EMPTY: readonly never[] = Object.freeze([]);

export type CallKind = 'llm' | 'tool' | 'agent';
type CallOfKind = { llm: LLMCall; tool: ToolCall; agent: AgentCall };

/**
 * The calls of a kind that an element contains: all of the session's for a Session, those with this `masCallId`
 * for a MASCall, those with this `agentCallId` for an AgentCall (for agent calls: the agent calls nested directly in it).
 */
export function callsWithin<K extends CallKind>(
  kind: K,
  level: OntologyLevel,
  element: Element,
  session: Session,
): readonly CallOfKind[K][] {
  if (level === 'Session') {
    const all = { llm: session.llmCalls, tool: session.toolCalls, agent: session.agentCalls }[kind];
    return all as CallOfKind[K][];
  }
  const index = sessionIndex(session);
  let groups: ReadonlyMap<string, Call[]>;
  if (level === 'MASCall') groups = { llm: index.llmByMas, tool: index.toolByMas, agent: index.agentByMas }[kind];
  else if (level === 'AgentCall') {
    groups = { llm: index.llmByAgent, tool: index.toolByAgent, agent: index.agentByAgent }[kind];
  } else throw new Error(`calls are grouped by Session, MASCall or AgentCall, not ${level}`);
  return (groups.get(element.id) ?? EMPTY) as CallOfKind[K][];
}
