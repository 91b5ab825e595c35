/**
 * Computations of the REST API in a worker thread with its own MCEClient: reading a big session from the store,
 * computing it, storing its results and serialising the answer would hold the server's event loop for seconds (20 s
 * for a 100,000-call session on SQLite, whose driver is synchronous); there they hold only the thread's. The thread
 * has a heap of its own: a computation too big for it fails, the server goes on.
 */
import { Worker } from 'node:worker_threads';
import { SessionNotFoundError } from '@mce/core';
import type { MceConfig } from '../config/index.js';
import type { ComputeRequest } from '../mce-client.js';
import { builtWorker } from './built-worker.js';
import type { ComputationDigest } from './computations.js';

/** A thread idle this long ends (see #idleFor). */
const IDLE_MS = 10_000;

export interface ComputeThreadOptions {
  /** The configuration the thread's client opens (the server's: same store, metrics, providers). */
  config: MceConfig;
  /** The environment it reads (store selection, judge). */
  env: NodeJS.ProcessEnv;
  /** The thread's heap, in MiB (default 4096). */
  heapMb?: number;
}

interface Pending {
  resolve(answer: { json?: string; digest?: ComputationDigest }): void;
  reject(error: Error): void;
}

type Reply = { id: number; json?: string; digest?: ComputationDigest; error?: { name: string; message: string; sessionIds?: string[] } };

/** An error of the thread as the server's own: a session deleted meanwhile stays a SessionNotFoundError (404). */
function errorOf(error: NonNullable<Reply['error']>): Error {
  if (error.name === 'SessionNotFoundError' && error.sessionIds) return new SessionNotFoundError(error.sessionIds);
  return Object.assign(new Error(error.message), { name: error.name });
}

export class ComputeThread {
  readonly #file = builtWorker('compute-worker');
  readonly #options: ComputeThreadOptions;
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, Pending>();
  #idle: NodeJS.Timeout | undefined;

  constructor(options: ComputeThreadOptions) {
    this.#options = options;
  }

  /** Whether there is a built thread to compute in (false: the caller computes in place). */
  get available(): boolean {
    return this.#file !== undefined;
  }

  /** The computation's JSON text (the synchronous answer). */
  async json(sessionId: string, request: ComputeRequest): Promise<string> {
    return (await this.#post(sessionId, request, 'json')).json!;
  }

  /** What a computation's summary needs. */
  async digest(sessionId: string, request: ComputeRequest): Promise<ComputationDigest> {
    return (await this.#post(sessionId, request, 'digest')).digest!;
  }

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #post(sessionId: string, request: ComputeRequest, answer: 'json' | 'digest') {
    const worker = this.#started();
    const id = this.#next++;
    return new Promise<{ json?: string; digest?: ComputationDigest }>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      clearTimeout(this.#idle);
      worker.ref();
      worker.postMessage({ id, sessionId, request, answer });
    });
  }

  /**
   * Idle: the thread no longer keeps the process alive, and after IDLE_MS it ends, giving its heap back (a big body
   * or session leaves hundreds of MB in it); the next request starts another.
   */
  #idleFor(worker: Worker): void {
    worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#worker === worker && this.#pending.size === 0) {
        this.#worker = undefined;
        void worker.terminate();
      }
    }, IDLE_MS);
    this.#idle.unref();
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    if (!this.#file) throw new Error('no built compute thread (npm run build)');
    const worker = new Worker(this.#file, {
      workerData: { config: this.#options.config, env: this.#options.env },
      resourceLimits: { maxOldGenerationSizeMb: this.#options.heapMb ?? 4096 },
    });
    worker.on('message', (reply: Reply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (reply.error) pending?.reject(errorOf(reply.error));
      else pending?.resolve(reply);
      if (this.#pending.size === 0) this.#idleFor(worker);
    });
    let lastError: Error | undefined;
    worker.on('error', (error) => (lastError = error));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#worker = undefined;
      const reason = lastError ?? new Error(`the compute thread stopped (exit code ${code})`);
      for (const pending of this.#pending.values()) pending.reject(reason);
      this.#pending.clear();
    });
    this.#worker = worker;
    return worker;
  }
}
