import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Session } from '../../ontology/types.js';
import type { WireOutcome, WireTask, WorkerReply, WorkerRequest } from './wire.js';

/** A worker thread or a child process running `worker-entry.js`. */
interface WorkerHandle {
  post(request: WorkerRequest): void;
  /** Keep the event loop alive while busy; let the process exit while idle. */
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

interface Listeners {
  onReply(reply: WorkerReply): void;
  onExit(reason: string): void;
}

export type WorkerKind = 'thread' | 'process';

function spawnThread(entry: URL, listeners: Listeners): WorkerHandle {
  const worker = new Worker(entry);
  let lastError: string | undefined;
  worker.on('message', (reply: WorkerReply) => listeners.onReply(reply));
  worker.on('error', (error) => (lastError = error.message));
  worker.on('exit', (code) => listeners.onExit(lastError ?? `worker thread exited with code ${code}`));
  return {
    post: (request) => worker.postMessage(request),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: async () => {
      worker.ref();
      await worker.terminate();
    },
  };
}

function spawnProcess(entry: URL, listeners: Listeners): WorkerHandle {
  const child = fork(fileURLToPath(entry), [], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (reply) => listeners.onReply(reply as WorkerReply));
  child.on('error', (error) => listeners.onExit(error.message));
  child.on('exit', (code, signal) => listeners.onExit(`worker process exited with ${signal ?? `code ${code}`}`));
  return {
    post: (request) => void child.send(request),
    ref: () => {
      child.ref();
      child.channel?.ref();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
    },
    terminate: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.ref(); // an idle child is unref'd: without this, nothing would keep the loop alive until 'exit'
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

interface Pending {
  request: WorkerRequest;
  resolve(outcomes: WireOutcome[][]): void;
  reject(error: Error): void;
}

interface Slot {
  handle: WorkerHandle;
  current?: Pending;
  dead: boolean;
}

/**
 * A fixed-size pool of worker threads or child processes, started lazily, one request per worker at a time.
 * A worker that dies fails its current request (its tasks become FailedRecords) and is replaced on demand.
 */
export class WorkerPool {
  readonly #slots = new Set<Slot>();
  readonly #idle: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;

  constructor(
    readonly kind: WorkerKind,
    private readonly entry: URL,
    readonly size: number,
  ) {}

  run(session: Session, dependencyResults: WorkerRequest['dependencyResults'], tasks: WireTask[]): Promise<WireOutcome[][]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request: { id: this.#nextId++, session, dependencyResults, tasks }, resolve, reject });
      this.#pump();
    });
  }

  /** Stops every worker; requests still queued or running fail (their tasks become FailedRecords). */
  async close(): Promise<void> {
    const slots = [...this.#slots];
    const queued = this.#queue.splice(0);
    this.#slots.clear();
    this.#idle.length = 0;
    for (const pending of queued) pending.reject(new Error(`${this.kind} pool closed`));
    for (const slot of slots) slot.dead = true;
    await Promise.all(slots.map((slot) => slot.handle.terminate()));
    for (const slot of slots) slot.current?.reject(new Error(`${this.kind} pool closed`));
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const slot = this.#idle.pop() ?? (this.#slots.size < this.size ? this.#spawn() : undefined);
      if (!slot) return;
      const pending = this.#queue.shift() as Pending;
      slot.current = pending;
      slot.handle.ref();
      try {
        slot.handle.post(pending.request);
      } catch (error) {
        slot.current = undefined;
        this.#release(slot);
        pending.reject(error as Error);
      }
    }
  }

  #spawn(): Slot {
    const slot: Slot = { handle: undefined as unknown as WorkerHandle, dead: false };
    const listeners: Listeners = {
      onReply: (reply) => {
        const pending = slot.current;
        if (!pending || pending.request.id !== reply.id) return;
        slot.current = undefined;
        this.#release(slot);
        if (reply.outcomes) pending.resolve(reply.outcomes);
        else pending.reject(new Error(reply.error ?? 'worker replied without outcomes'));
        this.#pump();
      },
      onExit: (reason) => {
        if (slot.dead) return;
        slot.dead = true;
        this.#slots.delete(slot);
        const at = this.#idle.indexOf(slot);
        if (at >= 0) this.#idle.splice(at, 1);
        const pending = slot.current;
        slot.current = undefined;
        pending?.reject(new Error(reason));
        this.#pump();
      },
    };
    slot.handle = this.kind === 'thread' ? spawnThread(this.entry, listeners) : spawnProcess(this.entry, listeners);
    this.#slots.add(slot);
    return slot;
  }

  #release(slot: Slot): void {
    if (slot.dead) return;
    slot.handle.unref();
    this.#idle.push(slot);
  }
}
