/**
 * Computations of the REST API in a worker thread with its own MCEClient: reading a big session from the store,
 * computing it, storing its results and serialising the answer would hold the server's event loop for seconds (20 s
 * for a 100,000-call session on SQLite, whose driver is synchronous); there they hold only the thread's. The thread
 * has a heap of its own: a computation too big for it fails, the server goes on.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { SessionNotFoundError } from '@mce/core';
import type { MceConfig } from '../config/index.js';
import type { ComputeRequest } from '../mce-client.js';
import { builtWorker } from './built-worker.js';
import { IdleThread } from './idle-thread.js';
import type { ComputationDigest } from './computations.js';
import { SpillFiles } from './spill-files.js';

export interface ComputeThreadOptions {
  /** The configuration the thread's client opens (the server's: same store, metrics, providers). */
  config: MceConfig;
  /** The environment it reads (store selection, judge). */
  env: NodeJS.ProcessEnv;
  /** The thread's heap, in MiB (default 4096). */
  heapMb?: number;
}

type Reply = { id: number; bytes?: number; digest?: ComputationDigest; error?: { name: string; message: string; sessionIds?: string[] } };

/** An error of the thread as the server's own: a session deleted meanwhile stays a SessionNotFoundError (404). */
function errorOf(error: NonNullable<Reply['error']>): Error {
  if (error.name === 'SessionNotFoundError' && error.sessionIds) return new SessionNotFoundError(error.sessionIds);
  return Object.assign(new Error(error.message), { name: error.name });
}

export class ComputeThread {
  readonly #thread: IdleThread<Reply> | undefined;
  readonly #files = new SpillFiles();

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

  /**
   * The computation's JSON, UTF-8 encoded, as a stream of the file the thread wrote it to (the synchronous answer,
   * sent as it is, a chunk at a time: never the whole of it in the server's memory). The file is removed once open.
   */
  async json(sessionId: string, request: ComputeRequest): Promise<{ stream: ReadableStream<Uint8Array>; byteLength: number }> {
    const file = await this.#files.path('answer');
    try {
      const { bytes } = await this.#post(sessionId, request, 'json', file);
      const reader = createReadStream(file);
      await once(reader, 'open');
      return { stream: Readable.toWeb(reader) as ReadableStream<Uint8Array>, byteLength: bytes! };
    } finally {
      await rm(file, { force: true });
    }
  }

  /** What a computation's summary needs. */
  async digest(sessionId: string, request: ComputeRequest): Promise<ComputationDigest> {
    return (await this.#post(sessionId, request, 'digest')).digest!;
  }

  async close(): Promise<void> {
    await this.#thread?.close();
    await this.#files.close();
  }

  #post(sessionId: string, request: ComputeRequest, answer: 'json' | 'digest', file?: string): Promise<Reply> {
    if (!this.#thread) return Promise.reject(new Error('no built compute thread (npm run build)'));
    return this.#thread.request({ sessionId, request, answer, ...(file ? { file } : {}) });
  }
}
