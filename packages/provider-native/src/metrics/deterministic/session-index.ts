import type { AgentCall, Call, Session } from '@mce/core';

/**
 * Per-session lookups shared by the deterministic metrics, built once per session object (sessions are treated as
 * immutable while they are being computed), each only when a metric first needs it. Container counts and token sums
 * live in `container-stats.ts`, costs in `cost.ts`, step sequences in `cycles.ts`.
 */

/** Sorted copy by start time (Array.prototype.sort is stable: ties keep their order). */
export function byStartTime<T extends { startTime: number }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.startTime - b.startTime);
}

export interface ElementSpan {
  start: number;
  end: number;
  /** Elements with finite start and end times. */
  elements: number;
  /** Elements left out for a missing or NaN time. */
  ignored: number;
}

const spans = new WeakMap<Session, ElementSpan | null>();

/** Earliest start and latest end over every element below the session; undefined when no element has valid times. */
export function elementSpan(session: Session): ElementSpan | undefined {
  let span = spans.get(session);
  if (span === undefined) {
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
    span = elements === 0 ? null : { start, end, elements, ignored };
    spans.set(session, span);
  }
  return span ?? undefined;
}

export interface AgentIndex {
  readonly agentById: ReadonlyMap<string, AgentCall>;
  /** Every agent call of the session (nested ones included), by start time; ties keep the session's order. */
  readonly agentSequence: readonly AgentCall[];
}

const agentIndexes = new WeakMap<Session, AgentIndex>();

export function agentIndex(session: Session): AgentIndex {
  let index = agentIndexes.get(session);
  if (!index) {
    index = {
      agentById: new Map(session.agentCalls.map((c) => [c.id, c])),
      agentSequence: byStartTime(session.agentCalls),
    };
    agentIndexes.set(session, index);
  }
  return index;
}
