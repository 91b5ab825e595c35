/**
 * The computations the REST API runs in the background (`Prefer: respond-async`), held in memory: a few at a time,
 * the rest waiting in the order they came (a bounded number: more are refused), and the last finished ones kept for
 * their clients to read — as a summary and where the stored results are, never the results themselves (a computation
 * of a big session holds megabytes of them). The table is lost at restart; the results a computation stored are not.
 */
import { MceError } from '@mce/core';
import { randomUUID } from 'node:crypto';
import type { FailedRecord, SessionComputation } from '@mce/core';
import { priceFallbackWarning, type PriceFallbackWarning } from '../price-fallback.js';

interface Submitted {
  id: string;
  sessionId: string;
  submittedAt: string;
}
interface Started extends Submitted {
  startedAt: string;
}

/** What a succeeded computation made: counts, the first metrics that failed, and where its stored results are. */
export interface ComputationSummary {
  results: number;
  failed: number;
  skipped: number;
  /** The first FAILURES_KEPT failures (`failed` counts them all): a failure is never stored, so it is kept here. */
  failures: FailedRecord[];
  /** `GET /results` of the session over the computation's run: its stored results, paged. */
  resultsUrl: string;
  /** The price-fallback warning, when the computation priced LLM calls like gpt-4o (price-fallback.ts). */
  warnings?: PriceFallbackWarning[];
}

/** Failures a summary keeps (a judge down fails every judged metric of every call: thousands). */
export const FAILURES_KEPT = 20;

/** Where a computation stands: a succeeded one always has its summary, a failed one its error. */
export type ComputationStatus =
  | (Submitted & { status: 'queued' })
  | (Started & { status: 'running' })
  | (Started & { status: 'succeeded'; finishedAt: string; summary: ComputationSummary })
  | (Started & { status: 'failed'; finishedAt: string; error: string });

export interface ComputationsOptions {
  /** Computations running at once (default 2): each may hold many judge calls, and the judge has its own limit. */
  maxConcurrent?: number;
  /** Finished computations kept, the oldest finished dropped first (default 1000); queued and running ones always stay. */
  maxFinished?: number;
  /** Computations waiting at most (default 100): more are refused (ComputationsFullError, 429). */
  maxQueued?: number;
  /** Computations queued or running at once for one caller (an API key's name); default: no limit but maxQueued. */
  maxPerCaller?: number;
}

export const COMPUTATION_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const satisfies ReadonlyArray<ComputationStatus['status']>;

export const DEFAULT_MAX_CONCURRENT_COMPUTATIONS = 2;
export const DEFAULT_MAX_FINISHED_COMPUTATIONS = 1000;
export const DEFAULT_MAX_QUEUED_COMPUTATIONS = 100;

/** Submitted to a table that is closing: the server is shutting down. */
export class ComputationsClosedError extends MceError {
  readonly kind = 'unavailable' as const;
  /** A server shutting down: another instance, or this one restarted, may take it in a few seconds. */
  readonly retryAfterSeconds = 5;
}

/** Submitted to a full queue, or past the caller's share of it: retry later. */
export class ComputationsFullError extends Error {}

/** What is kept of a computation (the results themselves are in the store). */
export interface ComputationDigest {
  sessionId: string;
  results: number;
  failed: number;
  skipped: number;
  failures: FailedRecord[];
  warnings?: PriceFallbackWarning[];
}

export function digestOf(computation: SessionComputation): ComputationDigest {
  const warning = priceFallbackWarning([computation]);
  return {
    sessionId: computation.sessionId,
    results: computation.results.length,
    failed: computation.failed.length,
    skipped: computation.skipped.length,
    failures: computation.failed.slice(0, FAILURES_KEPT),
    ...(warning ? { warnings: [warning] } : {}),
  };
}

/** The summary of a succeeded computation, `startedAt`–`finishedAt` bounding the timestamps of its stored results. */
function summaryOf(digest: ComputationDigest, startedAt: string, finishedAt: string): ComputationSummary {
  const query = new URLSearchParams({ session: digest.sessionId, from: startedAt, to: finishedAt });
  const { results, failed, skipped, failures, warnings } = digest;
  return { results, failed, skipped, failures, resultsUrl: `/results?${query.toString()}`, ...(warnings ? { warnings } : {}) };
}

const now = () => new Date().toISOString();

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (got ${value})`);
  return value;
}

export class Computations {
  readonly #maxConcurrent: number;
  readonly #maxFinished: number;
  readonly #maxQueued: number;
  readonly #maxPerCaller: number;
  /** Queued and running computations per caller. */
  readonly #perCaller = new Map<string, number>();
  /** Every computation still known, by id. */
  readonly #entries = new Map<string, ComputationStatus>();
  /** Waiting ones in submission order, with the work each will do. */
  readonly #queue: Array<{ id: string; run: () => Promise<ComputationDigest> }> = [];
  /** Finished ids, oldest finished first (a Set keeps insertion order). */
  readonly #finished = new Set<string>();
  #running = 0;
  #closed = false;
  #drained: Array<() => void> = [];

  constructor(options: ComputationsOptions = {}) {
    this.#maxConcurrent = positiveInteger('maxConcurrentComputations', options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_COMPUTATIONS);
    this.#maxFinished = positiveInteger('maxFinishedComputations', options.maxFinished ?? DEFAULT_MAX_FINISHED_COMPUTATIONS);
    this.#maxQueued = positiveInteger('maxQueuedComputations', options.maxQueued ?? DEFAULT_MAX_QUEUED_COMPUTATIONS);
    this.#maxPerCaller = options.maxPerCaller === undefined ? Infinity : positiveInteger('maxComputationsPerKey', options.maxPerCaller);
  }

  /**
   * Queues `run` (started at once when a place is free) and answers its status; ComputationsClosedError once closing,
   * ComputationsFullError when the queue is full or `caller` has its share queued or running.
   */
  submit(sessionId: string, run: () => Promise<ComputationDigest>, caller = ''): ComputationStatus {
    if (this.#closed) throw new ComputationsClosedError('the server is shutting down: it takes no new computations');
    if (this.#queue.length >= this.#maxQueued) throw new ComputationsFullError(`${this.#queue.length} computations are waiting already (the most the server queues); retry later`);
    const mine = this.#perCaller.get(caller) ?? 0;
    if (mine >= this.#maxPerCaller) throw new ComputationsFullError(`${mine} computations of this API key are queued or running already (the most one key may have); retry later`);
    this.#perCaller.set(caller, mine + 1);
    const id = randomUUID();
    this.#entries.set(id, { id, sessionId, submittedAt: now(), status: 'queued' });
    this.#queue.push({ id, run: async () => {
      try {
        return await run();
      } finally {
        const left = (this.#perCaller.get(caller) ?? 1) - 1;
        if (left === 0) this.#perCaller.delete(caller);
        else this.#perCaller.set(caller, left);
      }
    } });
    this.#startWaiting();
    return this.get(id)!;
  }

  get(id: string): ComputationStatus | undefined {
    return this.#entries.get(id);
  }

  /** A page of the computations known, newest submitted first; only those in one of `statuses` when given. */
  list(statuses?: ReadonlySet<ComputationStatus['status']>, page: { limit: number; offset: number } = { limit: Infinity, offset: 0 }): ComputationStatus[] {
    // A Map keeps the order of first insertion (an entry updated in place keeps its place): submission order.
    const all = [...this.#entries.values()].reverse();
    const kept = statuses ? all.filter((c) => statuses.has(c.status)) : all;
    return kept.slice(page.offset, page.offset + page.limit);
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

  async #run(id: string, run: () => Promise<ComputationDigest>): Promise<void> {
    const queued = this.#entries.get(id) as Submitted;
    const started: Started = { id, sessionId: queued.sessionId, submittedAt: queued.submittedAt, startedAt: now() };
    this.#entries.set(id, { ...started, status: 'running' });
    let finished: ComputationStatus;
    try {
      const digest = await run();
      const finishedAt = now();
      finished = { ...started, status: 'succeeded', finishedAt, summary: summaryOf(digest, started.startedAt, finishedAt) };
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
