import type { AgentCall, Call, Session } from '@mce/core';
import { perSession } from './session-cache.js';

/**
 * Per-session lookups shared by the deterministic metrics, built once per session object (sessions are treated as
 * immutable while they are being computed), each only when a metric first needs it. Container counts and token sums
 * live in `container-stats.ts`, costs in `cost.ts`, step sequences in `cycles.ts`.
 */

/**
 * Copy of `items` ordered by start time, ties in their given order (a stable sort). Start times are read once into a
 * typed array (the calls have many shapes, so reading them inside a comparator is slow), and a list already in order
 * — the usual case for ingested traces — is returned without sorting.
 */
export function byStartTime<T extends { startTime: number }>(items: readonly T[]): T[] {
  const n = items.length;
  const times = new Float64Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    times[i] = items[i]!.startTime;
    if (i > 0 && !(times[i]! >= times[i - 1]!)) sorted = false;
  }
  if (sorted) return items.slice();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Typed-array sort of indices with the index as tie-break: stable. NaN times sort last.
  const key = (i: number) => (Number.isNaN(times[i]!) ? Infinity : times[i]!);
  order.sort((a, b) => key(a) - key(b) || a - b);
  const out = new Array<T>(n);
  for (let i = 0; i < n; i++) out[i] = items[order[i]!]!;
  return out;
}

/** `byStartTime([...a, ...b])`, by merging when both lists are already in order (each usually is). */
export function mergeByStartTime<A extends { startTime: number }, B extends { startTime: number }>(
  a: readonly A[],
  b: readonly B[],
): Array<A | B> {
  if (!inOrder(a) || !inOrder(b)) return byStartTime<A | B>([...a, ...b]);
  const out = new Array<A | B>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    // Ties: a first, as in a stable sort of [...a, ...b].
    if (b[j]!.startTime < a[i]!.startTime) out[k++] = b[j++]!;
    else out[k++] = a[i++]!;
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

function inOrder(items: readonly { startTime: number }[]): boolean {
  for (let i = 1; i < items.length; i++) if (!(items[i]!.startTime >= items[i - 1]!.startTime)) return false;
  return true;
}

export interface ElementSpan {
  start: number;
  end: number;
  /** Elements with finite start and end times. */
  elements: number;
  /** Elements left out for a missing or NaN time. */
  ignored: number;
}

/** Earliest start and latest end over every element below the session; undefined when no element has valid times. */
export function elementSpan(session: Session): ElementSpan | undefined {
  return perSession(session, 'elementSpan', buildSpan) ?? undefined;
}

function buildSpan(session: Session): ElementSpan | null {
  let start = Infinity;
  let end = -Infinity;
  let elements = 0;
  let ignored = 0;
  // Indexed loops: this runs once per session, mostly before the optimiser steps in, and an unoptimised for-of
  // allocates an iterator result per element.
  for (const list of [session.masCalls, session.agentCalls, session.taskCalls, session.llmCalls, session.toolCalls]) {
    for (let i = 0; i < list.length; i++) {
      const call = list[i] as Call;
      if (!Number.isFinite(call.startTime) || !Number.isFinite(call.endTime)) {
        ignored += 1;
        continue;
      }
      if (call.startTime < start) start = call.startTime;
      if (call.endTime > end) end = call.endTime;
      elements += 1;
    }
  }
  return elements === 0 ? null : { start, end, elements, ignored };
}

export interface AgentIndex {
  readonly agentById: ReadonlyMap<string, AgentCall>;
  /** Every agent call of the session (nested ones included), by start time; ties keep the session's order. */
  readonly agentSequence: readonly AgentCall[];
}

export function agentIndex(session: Session): AgentIndex {
  return perSession(session, 'agentIndex', (s) => ({
    agentById: new Map(s.agentCalls.map((c) => [c.id, c])),
    agentSequence: byStartTime(s.agentCalls),
  }));
}
