/**
 * One worker (a child process: idle-worker-runner.ts) that answers numbered requests, started
 * at the first and ended once idle: while it waits on nothing it does not keep the process alive, and after IDLE_MS it
 * ends, giving its memory back (a big body or session leaves hundreds of MB in it); the next request starts another.
 * A worker that dies fails what it was answering, not the server. The body reader and the compute thread each own one.
 */
import { startWorker, type WorkerRunner } from './idle-worker-runner.js';

/** A thread idle this long ends. */
const IDLE_MS = 10_000;

interface Pending<R> {
  resolve(reply: R): void;
  reject(error: Error): void;
}

export interface IdleThreadOptions<R> {
  /** What the thread is, for the error when it stops ("the body reader thread"). */
  name: string;
  heapMb: number;
  workerData?: unknown;
  /** A reply's error, if it carries one (it then rejects its request). */
  failureOf(reply: R): Error | undefined;
}

export class IdleThread<R extends { id: number }> {
  #worker: WorkerRunner | undefined;
  #next = 0;
  readonly #pending = new Map<number, Pending<R>>();
  #idle: NodeJS.Timeout | undefined;

  constructor(
    readonly file: URL,
    readonly options: IdleThreadOptions<R>,
  ) {}

  /** Requests sent and not answered yet. */
  get waiting(): number {
    return this.#pending.size;
  }

  /** Sends `message` with a fresh `id` (copied through the process's channel); resolves with its reply. */
  request(message: Record<string, unknown>): Promise<R> {
    const worker = this.#started();
    const id = this.#next++;
    return new Promise<R>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      clearTimeout(this.#idle);
      worker.ref();
      worker.post({ ...message, id });
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.end();
  }

  #idleFor(worker: WorkerRunner): void {
    worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#worker === worker && this.#pending.size === 0) {
        this.#worker = undefined;
        void worker.end();
      }
    }, IDLE_MS);
    this.#idle.unref();
  }

  #started(): WorkerRunner {
    if (this.#worker) return this.#worker;
    const { heapMb, workerData } = this.options;
    const worker = startWorker(this.file, heapMb, workerData);
    worker.onMessage((message) => {
      const reply = message as R;
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      const failure = this.options.failureOf(reply);
      if (failure) pending?.reject(failure);
      else pending?.resolve(reply);
      if (this.#pending.size === 0) this.#idleFor(worker);
    });
    let lastError: Error | undefined;
    worker.onError((error) => (lastError = error));
    worker.onExit((code) => {
      if (this.#worker === worker) this.#worker = undefined;
      const reason = lastError ?? new Error(`${this.options.name} stopped (exit code ${code})`);
      for (const pending of this.#pending.values()) pending.reject(reason);
      this.#pending.clear();
    });
    this.#worker = worker;
    return worker;
  }
}
