/**
 * Link rules shared by the normaliser (one part of a session at a time) and the store's reconciliation of a session
 * written in parts (`ingest/parts.ts`), so that both give a call the same MAS call.
 */
import type { MASCall } from '@mce/core';
import { stringField, stripKindSuffix } from './dialects/index.js';
import type { SpanRecord } from './span.js';

/**
 * Reserved call attribute: the id of the span at which the call's chain of parent spans leaves the spans it was read
 * with (a parent span in another part of the session, or one that was never exported). Set by the normaliser on a
 * call that has no ancestor call among those spans; on an implicit MAS call, when the trace's first parentless span
 * there is such a span. The store resolves it against the calls of the stored session (and then removes it).
 */
export const MISSING_PARENT_KEY = 'mce.missing_parent_span_id';

/** An implicit MAS call: the one made for a trace of a session without workflow spans, its id the trace id. */
export function isImplicitMas(call: { kind: string; id: string; traceId?: string | undefined }): boolean {
  return call.kind === 'MASCall' && call.traceId !== undefined && call.id === call.traceId;
}

/** The missing parent span a call names (see MISSING_PARENT_KEY), if any. */
export function missingParentOf(call: { attributes?: Record<string, unknown> | undefined }): string | undefined {
  const v = call.attributes?.[MISSING_PARENT_KEY];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The MAS call of an element without an ancestor MAS call: of the MAS calls (in start order), the first of its own
 * trace whose window holds its start, else the last of any trace whose window holds it, else the implicit MAS call
 * of its trace.
 */
export class MasWindows {
  readonly #all: readonly MASCall[];
  readonly #byTrace = new Map<string, MASCall[]>();

  constructor(masCalls: readonly MASCall[]) {
    this.#all = masCalls;
    for (const c of masCalls) {
      if (c.traceId === undefined) continue;
      const l = this.#byTrace.get(c.traceId);
      if (l) l.push(c);
      else this.#byTrace.set(c.traceId, [c]);
    }
  }

  of(traceId: string | undefined, start: number): string | undefined {
    const within = (c: MASCall) => c.startTime <= start && start <= c.endTime;
    const sameTrace = traceId === undefined ? undefined : this.#byTrace.get(traceId)?.find(within);
    if (sameTrace) return sameTrace.id;
    const inWindow = this.#all.findLast(within);
    if (inWindow) return inWindow.id;
    return traceId === undefined ? undefined : this.#all.find((c) => c.id === traceId)?.id;
  }
}

/** The span a call was read from, as far as the call keeps it (name, times, attributes): for the dialects' fields. */
export function callSpan(call: { id: string; traceId?: string | undefined; name: string; startTime: number; endTime: number; attributes?: Record<string, unknown> | undefined }): SpanRecord {
  return {
    traceId: call.traceId ?? '',
    spanId: call.id,
    name: call.name,
    kind: 'internal',
    startTime: call.startTime,
    endTime: call.endTime,
    status: { code: 'unset' },
    attributes: call.attributes ?? {},
    resource: {},
    events: [],
  };
}

/**
 * The task name the normaliser gives a span of this name and these attributes (for a workflow span that turns out to
 * be nested, once the parts of its session are joined).
 */
export function taskNameOf(call: Parameters<typeof callSpan>[0]): string {
  const span = callSpan(call);
  return stringField(span, 'taskName') ?? stripKindSuffix(call.name);
}

/**
 * The nearest ancestor (following `parentOf`) that `pred` holds for, each answer remembered for every item the walk
 * passed: a chain is climbed once, not once per item (asked for every span of a 30,000-span chain, a plain walk took
 * seconds). For a tree that no longer changes while it is asked.
 */
export function nearestAncestor<T>(parentOf: (item: T) => T | undefined, pred: (item: T) => boolean): (item: T) => T | undefined {
  const known = new Map<T, T | null>();
  return (item) => {
    const passed: T[] = [item];
    let answer: T | null = null;
    for (let current = item; ; ) {
      const p = parentOf(current);
      if (p === undefined) break;
      if (pred(p)) {
        answer = p;
        break;
      }
      const above = known.get(p);
      if (above !== undefined) {
        answer = above;
        break;
      }
      passed.push(p);
      current = p;
    }
    for (const x of passed) known.set(x, answer);
    return answer ?? undefined;
  };
}

/** `list` grouped by `key`, each group in list order (Map.groupBy arrives with Node 21). */
export function groupBy<K, T>(list: readonly T[], key: (x: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const x of list) {
    const g = groups.get(key(x));
    if (g) g.push(x);
    else groups.set(key(x), [x]);
  }
  return groups;
}
