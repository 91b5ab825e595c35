/**
 * Reads `POST /sessions` bodies off the event loop: a big body's JSON parse and validation take about a second per
 * 20 MB, during which nothing else (not even `/healthz`) would be answered. Bodies from BIG_BODY_CHARS on go to one
 * worker thread, one at a time (a flood of them is parsed one after the other, not all at once in the heap); smaller
 * ones are read in place. A worker that dies (out of its own memory) fails its body, not the server.
 */
import { MceError } from '@mce/core';
import { Worker } from 'node:worker_threads';
import { builtWorker } from './built-worker.js';
import { readSessionBody, type SessionBody } from './session-body.js';

/** A thread idle this long ends (see #idleFor). */
const IDLE_MS = 10_000;

/** From here a body is read in the worker thread (a smaller one takes under a few milliseconds in place). */
export const BIG_BODY_CHARS = 512 * 1024;

/** More big bodies than the reader lets wait: the server is busy, retry. */
export class BodyReaderBusyError extends MceError {
  readonly kind = 'unavailable' as const;
}

interface Pending {
  resolve(body: SessionBody): void;
  reject(error: Error): void;
}

export class BodyReader {
  readonly #file = builtWorker('body-worker');
  readonly #maxWaiting: number;
  readonly #heapMb: number;
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, Pending>();
  #idle: NodeJS.Timeout | undefined;

  constructor(options: { maxWaiting?: number; heapMb?: number } = {}) {
    this.#maxWaiting = options.maxWaiting ?? 8;
    this.#heapMb = options.heapMb ?? 1024;
  }

  /** Whether big bodies go to a worker thread (false: no built worker file; they are read in place). */
  get threaded(): boolean {
    return this.#file !== undefined;
  }

  read(text: string): Promise<SessionBody> {
    if (text.length < BIG_BODY_CHARS || !this.#file) return Promise.resolve(readSessionBody(text));
    if (this.#pending.size >= this.#maxWaiting) {
      return Promise.reject(new BodyReaderBusyError(`${this.#pending.size} large bodies are being read already; retry`));
    }
    const worker = this.#started(this.#file);
    const id = this.#next++;
    return new Promise<SessionBody>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      clearTimeout(this.#idle);
      worker.ref();
      worker.postMessage({ id, text });
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
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

  #started(file: URL): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(file, { resourceLimits: { maxOldGenerationSizeMb: this.#heapMb } });
    worker.on('message', ({ id, body, failure }: { id: number; body?: SessionBody; failure?: string }) => {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      if (body) pending?.resolve(body);
      else pending?.reject(new Error(failure));
      if (this.#pending.size === 0) this.#idleFor(worker);
    });
    let lastError: Error | undefined;
    worker.on('error', (error) => (lastError = error));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#worker = undefined;
      const reason = lastError ?? new Error(`the body reader thread stopped (exit code ${code})`);
      for (const pending of this.#pending.values()) pending.reject(reason);
      this.#pending.clear();
    });
    this.#worker = worker;
    return worker;
  }
}
