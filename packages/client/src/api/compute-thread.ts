/**
 * Computations of the REST API in a worker thread with its own MCEClient: reading a big session from the store,
 * computing it, storing its results and serialising the answer would hold the server's event loop for seconds (20 s
 * for a 100,000-call session on SQLite, whose driver is synchronous); there they hold only the thread's. The thread
 * has a heap of its own: a computation too big for it fails, the server goes on.
 */
import { SessionNotFoundError } from '@mce/core';
import type { MceConfig } from '../config/index.js';
import type { ComputeRequest } from '../mce-client.js';
import { builtWorker } from './built-worker.js';
import { IdleThread } from './idle-thread.js';
import type { ComputationDigest } from './computations.js';

export interface ComputeThreadOptions {
  /** The configuration the thread's client opens (the server's: same store, metrics, providers). */
  config: MceConfig;
  /** The environment it reads (store selection, judge). */
  env: NodeJS.ProcessEnv;
  /** The thread's heap, in MiB (default 4096). */
  heapMb?: number;
}

type Reply = { id: number; json?: Uint8Array<ArrayBuffer>; digest?: ComputationDigest; error?: { name: string; message: string; sessionIds?: string[] } };

/** An error of the thread as the server's own: a session deleted meanwhile stays a SessionNotFoundError (404). */
function errorOf(error: NonNullable<Reply['error']>): Error {
  if (error.name === 'SessionNotFoundError' && error.sessionIds) return new SessionNotFoundError(error.sessionIds);
  return Object.assign(new Error(error.message), { name: error.name });
}

export class ComputeThread {
  readonly #thread: IdleThread<Reply> | undefined;

  constructor(options: ComputeThreadOptions) {
    const file = builtWorker('compute-worker');
    this.#thread = file && new IdleThread<Reply>(file, {
      name: 'the compute thread',
      heapMb: options.heapMb ?? 4096,
      workerData: { config: options.config, env: options.env },
      failureOf: (reply) => (reply.error ? errorOf(reply.error) : undefined),
    });
  }

  /** Whether there is a built thread to compute in (false: the caller computes in place). */
  get available(): boolean {
    return this.#thread !== undefined;
  }

  /** The computation's JSON, UTF-8 encoded (the synchronous answer, sent as it is). */
  async json(sessionId: string, request: ComputeRequest): Promise<Uint8Array<ArrayBuffer>> {
    return (await this.#post(sessionId, request, 'json')).json!;
  }

  /** What a computation's summary needs. */
  async digest(sessionId: string, request: ComputeRequest): Promise<ComputationDigest> {
    return (await this.#post(sessionId, request, 'digest')).digest!;
  }

  close(): Promise<void> {
    return this.#thread?.close() ?? Promise.resolve();
  }

  #post(sessionId: string, request: ComputeRequest, answer: 'json' | 'digest'): Promise<Reply> {
    if (!this.#thread) return Promise.reject(new Error('no built compute thread (npm run build)'));
    return this.#thread.request({ sessionId, request, answer });
  }
}
