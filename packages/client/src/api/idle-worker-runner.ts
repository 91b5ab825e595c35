/**
 * The child process (`child_process.fork`) idle-thread.ts starts a worker module in. A child process gives all its
 * memory back to the system when it ends; a worker thread's heap goes back too, but the C allocator keeps the arenas
 * the thread used (~60–80 MB each after a 30 MB body or a 100,000-call computation, measured), so the server's RSS
 * stayed up; and a fatal out-of-memory in a thread can end the server with it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A started worker process, as the idle thread uses it. */
export interface WorkerRunner {
  post(message: object): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Its failure, when it has one to say, then its end. */
  onError(listener: (error: Error) => void): void;
  onExit(listener: (code: number | null) => void): void;
  /** Whether it keeps the server's process alive. */
  ref(): void;
  unref(): void;
  end(): Promise<void>;
}

export function startWorker(file: URL, heapMb: number, workerData: unknown): WorkerRunner {
  // Its own heap limit, not the server's flags (a debugger's or a test runner's); `advanced`: typed arrays cross as
  // bytes, not as JSON arrays of numbers.
  const child: ChildProcess = fork(fileURLToPath(file), [], { execArgv: [`--max-old-space-size=${heapMb}`], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send({ workerData });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return {
    post: (message) => void child.send(message),
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
