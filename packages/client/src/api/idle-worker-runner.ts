/**
 * What idle-thread.ts starts a worker module in: a worker thread, or a child process (`child_process.fork`). A child
 * process gives all its memory back to the system when it ends; a thread's heap goes back too, but the C allocator
 * keeps the arenas the thread used (~60–80 MB each after a 30 MB body or a 100,000-call computation, measured), so the
 * server's RSS stays up. A thread shares the server's process: a fatal out-of-memory in it can end the server too.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker, type TransferListItem } from 'node:worker_threads';

export type WorkerKind = 'thread' | 'process';

/** A started worker, thread or process, as the idle thread uses it. */
export interface WorkerRunner {
  post(message: object, transfer: readonly TransferListItem[]): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Its failure, when it has one to say (a thread's uncaught error), then its end. */
  onError(listener: (error: Error) => void): void;
  onExit(listener: (code: number | null) => void): void;
  /** Whether it keeps the server's process alive. */
  ref(): void;
  unref(): void;
  end(): Promise<void>;
}

export function startWorker(kind: WorkerKind, file: URL, heapMb: number, workerData: unknown): WorkerRunner {
  return kind === 'process' ? processRunner(file, heapMb, workerData) : threadRunner(file, heapMb, workerData);
}

function threadRunner(file: URL, heapMb: number, workerData: unknown): WorkerRunner {
  const worker = new Worker(file, { ...(workerData !== undefined ? { workerData } : {}), resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.on('message', listener),
    onError: (listener) => worker.on('error', listener),
    onExit: (listener) => worker.on('exit', listener),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    end: async () => void (await worker.terminate()),
  };
}

function processRunner(file: URL, heapMb: number, workerData: unknown): WorkerRunner {
  // Its own heap limit, not the server's flags (a debugger's or a test runner's); `advanced`: typed arrays cross as
  // bytes, not as JSON arrays of numbers.
  const child: ChildProcess = fork(fileURLToPath(file), [], { execArgv: [`--max-old-space-size=${heapMb}`], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send({ workerData });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return {
    post: (message, transfer) => {
      child.send(message);
      // Moved, as to a thread: the caller's buffers are detached (and freed now), the copy is on its way.
      if (transfer.length > 0) structuredClone(undefined, { transfer: [...transfer] });
    },
    onMessage: (listener) => child.on('message', listener),
    onError: (listener) => child.on('error', listener),
    onExit: (listener) => child.on('exit', (code) => listener(code)),
    ref: () => (child.ref(), child.channel?.ref()),
    unref: () => (child.unref(), child.channel?.unref()),
    end: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // Held until it has ended (an idle one is unreferenced): a server that closes waits for its workers.
      child.ref();
      child.kill();
      await exited;
    },
  };
}
