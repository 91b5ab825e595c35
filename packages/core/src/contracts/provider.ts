import type { Session } from '../ontology/types.js';
import type { Metric } from './metric.js';

/** Where sessions come from: a store, a file, memory. */
export interface DataProvider {
  /** One session with its full context, or undefined when unknown. */
  retrieve(sessionId: string): Promise<Session | undefined>;
  /** Several sessions; unknown ids are left out. */
  fetch(sessionIds: readonly string[]): Promise<Session[]>;
  /** Like fetch, in one round-trip where the backend allows it. */
  fetchBatch(sessionIds: readonly string[]): Promise<Session[]>;
}

/** A package of metrics (the built-in `mce` provider, a DeepEval adapter, …). */
export interface MetricProvider {
  /** Provider id written as `Metric.computedBy`. */
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** Every metric this provider implements. */
  metrics(): readonly Metric[];
  /**
   * True when every `details` its metrics return is plain JSON (no BigInt, cycle or class instance). The engine then
   * takes them as they are; otherwise it checks each one, and details JSON cannot hold are that element's failure
   * (they could be neither printed nor stored).
   */
  readonly jsonDetails?: boolean;
  /**
   * Called by the engine once it has finished computing `session` (whatever the outcome): drop anything cached for
   * it. Metrics may cache per session object while it is computed; this bounds those caches to the sessions in
   * flight rather than to the sessions alive.
   */
  releaseSession?(session: Session): void;
}

/** An in-memory DataProvider over sessions already loaded (files, tests). */
export class InMemoryDataProvider implements DataProvider {
  readonly #sessions = new Map<string, Session>();
  constructor(sessions: Iterable<Session> = []) {
    for (const s of sessions) this.#sessions.set(s.id, s);
  }
  add(session: Session): void {
    this.#sessions.set(session.id, session);
  }
  async retrieve(sessionId: string): Promise<Session | undefined> {
    return this.#sessions.get(sessionId);
  }
  async fetch(sessionIds: readonly string[]): Promise<Session[]> {
    return sessionIds.flatMap((id) => this.#sessions.get(id) ?? []);
  }
  fetchBatch(sessionIds: readonly string[]): Promise<Session[]> {
    return this.fetch(sessionIds);
  }
}
