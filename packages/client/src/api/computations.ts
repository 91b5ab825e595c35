/**
 * The computations the REST API runs in the background (`Prefer: respond-async`), held in memory: a few at a time,
 * the rest waiting in the order they came, and the last finished ones kept for their clients to read. The table is
 * lost at restart; the results a computation stored are not.
 */
import { randomUUID } from 'node:crypto';
import type { SessionComputation } from '@mce/core';

interface Submitted {
  id: string;
  sessionId: string;
  submittedAt: string;
}
interface Started extends Submitted {
  startedAt: string;
}

/** Where a computation stands: a succeeded one always has its computation, a failed one its error. */
export type ComputationStatus =
  | (Submitted & { status: 'queued' })
  | (Started & { status: 'running' })
  | (Started & { status: 'succeeded'; finishedAt: string; computation: SessionComputation })
  | (Started & { status: 'failed'; finishedAt: string; error: string });

export interface ComputationsOptions {
  /** Computations running at once (default 2): each may hold many judge calls, and the judge has its own limit. */
  maxConcurrent?: number;
  /** Finished computations kept, the oldest finished dropped first (default 1000); queued and running ones always stay. */
  maxFinished?: number;
}

export const COMPUTATION_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const satisfies ReadonlyArray<ComputationStatus['status']>;

export const DEFAULT_MAX_CONCURRENT_COMPUTATIONS = 2;
export const DEFAULT_MAX_FINISHED_COMPUTATIONS = 1000;

/** Submitted to a table that is closing: the server is shutting down. */
export class ComputationsClosedError extends Error {}

const now = () => new Date().toISOString();

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (got ${value})`);
  return value;
}

export class Computations {
  readonly #maxConcurrent: number;
  readonly #maxFinished: number;
  /** Every computation still known, by id. */
  readonly #entries = new Map<string, ComputationStatus>();
  /** Waiting ones in submission order, with the work each will do. */
  readonly #queue: Array<{ id: string; run: () => Promise<SessionComputation> }> = [];
  /** Finished ids, oldest finished first (a Set keeps insertion order). */
  readonly #finished = new Set<string>();
  #running = 0;
  #closed = false;
  #drained: Array<() => void> = [];

  constructor(options: ComputationsOptions = {}) {
    this.#maxConcurrent = positiveInteger('maxConcurrentComputations', options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_COMPUTATIONS);
    this.#maxFinished = positiveInteger('maxFinishedComputations', options.maxFinished ?? DEFAULT_MAX_FINISHED_COMPUTATIONS);
  }

  /** Queues `run` (started at once when a place is free) and answers its status; ComputationsClosedError once closing. */
  submit(sessionId: string, run: () => Promise<SessionComputation>): ComputationStatus {
    if (this.#closed) throw new ComputationsClosedError('the server is shutting down: it takes no new computations');
    const id = randomUUID();
    this.#entries.set(id, { id, sessionId, submittedAt: now(), status: 'queued' });
    this.#queue.push({ id, run });
    this.#startWaiting();
    return this.get(id)!;
  }

  get(id: string): ComputationStatus | undefined {
    return this.#entries.get(id);
  }

  /** The computations known, newest submitted first; only those in one of `statuses` when given. */
  list(statuses?: ReadonlySet<ComputationStatus['status']>): ComputationStatus[] {
    // A Map keeps the order of first insertion (an entry updated in place keeps its place): submission order.
    const all = [...this.#entries.values()].reverse();
    return statuses ? all.filter((c) => statuses.has(c.status)) : all;
  }

  /** Computations known: queued, running and the finished ones kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Queued and running computations. */
  get pending(): number {
    return this.#queue.length + this.#running;
  }

  /** Takes no new computation and resolves once every queued and running one has finished. */
  close(): Promise<void> {
    this.#closed = true;
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #startWaiting(): void {
    while (this.#running < this.#maxConcurrent && this.#queue.length > 0) {
      const { id, run } = this.#queue.shift()!;
      this.#running++;
      void this.#run(id, run);
    }
    if (this.pending === 0) for (const resolve of this.#drained.splice(0)) resolve();
  }

  async #run(id: string, run: () => Promise<SessionComputation>): Promise<void> {
    const queued = this.#entries.get(id) as Submitted;
    const started: Started = { id, sessionId: queued.sessionId, submittedAt: queued.submittedAt, startedAt: now() };
    this.#entries.set(id, { ...started, status: 'running' });
    let finished: ComputationStatus;
    try {
      const computation = await run();
      finished = { ...started, status: 'succeeded', finishedAt: now(), computation };
    } catch (error) {
      finished = { ...started, status: 'failed', finishedAt: now(), error: error instanceof Error ? error.message : String(error) };
    }
    this.#entries.set(id, finished);
    this.#finished.add(id);
    for (const old of this.#finished) {
      if (this.#finished.size <= this.#maxFinished) break;
      this.#finished.delete(old);
      this.#entries.delete(old);
    }
    this.#running--;
    this.#startWaiting();
  }
}
