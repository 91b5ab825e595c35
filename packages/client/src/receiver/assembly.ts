/**
 * Spans arriving over OTLP grouped into sessions by the rules of file ingestion (SPEC §1): a span's own session key;
 * else the session its trace was seen under; else it waits under its trace id until a span of the trace names the
 * session, or until the trace goes idle (then it is a session of its own, named by the trace id). Each batch's groups
 * are stored as parts of their sessions (the store merges parts); a session is complete once it went idle, or when its
 * root span arrived.
 */
import { explicitSessionId } from '@mce/ingest';
import type { SpanRecord } from '@mce/ingest';

/** Spans of one session to store now; `fromPending` were held from earlier batches (put back if the write fails). */
export interface SessionPart {
  sessionId: string;
  spans: SpanRecord[];
  fromPending: SpanRecord[];
}

interface Pending {
  spans: SpanRecord[];
  lastAt: number;
  rootSeen: boolean;
}

interface Open {
  lastAt: number;
  rootSeen: boolean;
}

/** Trace → session mappings kept (the oldest forgotten past it), so memory stays flat on an endless stream. */
const MAX_TRACES = 1_000_000;

export class SessionAssembler {
  readonly #traceSession = new Map<string, string>();
  readonly #pending = new Map<string, Pending>();
  readonly #open = new Map<string, Open>();
  #pendingSpans = 0;

  constructor(
    private readonly options: { completeOnRoot: boolean; sessionKeys?: readonly string[] },
  ) {}

  /** Spans waiting for their trace's session id. */
  get pendingSpans(): number {
    return this.#pendingSpans;
  }

  /** Sessions that received spans and are not complete yet. */
  get openSessions(): number {
    return this.#open.size;
  }

  /** The parts of one batch to store; spans of traces with no session id yet are held back. */
  add(spans: readonly SpanRecord[], now: number): SessionPart[] {
    const parts = new Map<string, SessionPart>();
    const partOf = (sessionId: string) => {
      let part = parts.get(sessionId);
      if (!part) parts.set(sessionId, (part = { sessionId, spans: [], fromPending: [] }));
      return part;
    };
    for (const span of spans) {
      const explicit = explicitSessionId(span, this.options.sessionKeys);
      const sessionId = explicit ?? this.#traceSession.get(span.traceId);
      if (sessionId === undefined) {
        this.#hold(span, now);
        continue;
      }
      this.#mapTrace(span.traceId, sessionId);
      const part = partOf(sessionId);
      part.spans.push(span);
      this.#release(span.traceId, part);
      this.#touch(sessionId, now, span.parentSpanId === undefined);
    }
    return [...parts.values()];
  }

  /**
   * Spans of a part whose write failed, held again under their traces; those of `resent` (the failed request's own,
   * which its client sends again) are not, nor are they left held: they would be stored twice.
   */
  restore(part: SessionPart, now: number, resent?: ReadonlySet<SpanRecord>): void {
    for (const span of part.fromPending) if (!resent?.has(span)) this.#hold(span, now);
    if (resent) this.#forget(resent);
  }

  #forget(spans: ReadonlySet<SpanRecord>): void {
    for (const traceId of new Set([...spans].map((s) => s.traceId))) {
      const pending = this.#pending.get(traceId);
      if (!pending) continue;
      const kept = pending.spans.filter((s) => !spans.has(s));
      this.#pendingSpans -= pending.spans.length - kept.length;
      if (kept.length === 0) this.#pending.delete(traceId);
      else pending.spans = kept;
    }
  }

  /**
   * What is due at `now`: traces held for `idleMs` (or whose root arrived) are stored, as sessions of their own named by
   * the trace id unless the trace was seen under a session; sessions idle for `idleMs` (or whose root arrived) are complete, to be evaluated.
   */
  due(now: number, idleMs: number): { parts: SessionPart[]; complete: string[] } {
    const parts: SessionPart[] = [];
    for (const [traceId, pending] of this.#pending) {
      if (now - pending.lastAt < idleMs && !(this.options.completeOnRoot && pending.rootSeen)) continue;
      // Spans held again after a failed write belong to the session their trace was seen under; others to their trace.
      const sessionId = this.#traceSession.get(traceId) ?? traceId;
      const part: SessionPart = { sessionId, spans: [], fromPending: [] };
      this.#mapTrace(traceId, sessionId);
      this.#release(traceId, part);
      this.#touch(sessionId, pending.lastAt, pending.rootSeen);
      parts.push(part);
    }
    const complete: string[] = [];
    for (const [sessionId, open] of this.#open) {
      if (now - open.lastAt < idleMs && !(this.options.completeOnRoot && open.rootSeen)) continue;
      this.#open.delete(sessionId);
      complete.push(sessionId);
    }
    return { parts, complete };
  }

  /** Everything held, as parts to store now (the receiver is stopping), and every open session as complete. */
  drain(): { parts: SessionPart[]; complete: string[] } {
    // With no time left, every held trace is due and every open session complete.
    return this.due(Number.POSITIVE_INFINITY, 0);
  }

  #hold(span: SpanRecord, now: number): void {
    let pending = this.#pending.get(span.traceId);
    if (!pending) this.#pending.set(span.traceId, (pending = { spans: [], lastAt: now, rootSeen: false }));
    pending.spans.push(span);
    pending.lastAt = now;
    if (span.parentSpanId === undefined) pending.rootSeen = true;
    this.#pendingSpans++;
  }

  /** The held spans of `traceId` into `part`. */
  #release(traceId: string, part: SessionPart): void {
    const pending = this.#pending.get(traceId);
    if (!pending) return;
    this.#pending.delete(traceId);
    this.#pendingSpans -= pending.spans.length;
    for (const span of pending.spans) {
      part.spans.push(span);
      part.fromPending.push(span);
    }
  }

  #mapTrace(traceId: string, sessionId: string): void {
    if (this.#traceSession.get(traceId) === sessionId) return;
    this.#traceSession.set(traceId, sessionId);
    if (this.#traceSession.size > MAX_TRACES) this.#traceSession.delete(this.#traceSession.keys().next().value as string);
  }

  #touch(sessionId: string, now: number, root: boolean): void {
    const open = this.#open.get(sessionId) ?? { lastAt: now, rootSeen: false };
    open.lastAt = Math.max(open.lastAt, now);
    open.rootSeen ||= root;
    this.#open.set(sessionId, open);
  }
}
