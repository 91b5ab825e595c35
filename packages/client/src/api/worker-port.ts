/**
 * The side of a worker module (body-worker, compute-worker) that talks to the server, the same whether it runs as a
 * worker thread or as a child process (idle-thread.ts starts either): its start data, the messages it is sent, and
 * how it answers.
 */
import { parentPort, workerData } from 'node:worker_threads';

export interface WorkerPort {
  /** What the server started it with (`workerData` of a thread; the first message of a child process). */
  readonly data: Promise<unknown>;
  onMessage<M>(listener: (message: M) => void): void;
  /** `transfer`: buffers moved to the server (a thread's); a child process's are copied through its channel. */
  post(message: object, transfer?: ArrayBuffer[]): void;
}

export function workerPort(): WorkerPort {
  if (parentPort) {
    const port = parentPort;
    return { data: Promise.resolve(workerData), onMessage: (listener) => void port.on('message', listener), post: (message, transfer = []) => port.postMessage(message, transfer) };
  }
  return childProcessPort();
}

/** In a child process: the first message is its start data; it ends when the server closes its channel. */
function childProcessPort(): WorkerPort {
  let listener: ((message: unknown) => void) | undefined;
  let started: (data: unknown) => void;
  const data = new Promise<unknown>((resolve) => (started = resolve));
  let first = true;
  process.on('message', (message: { workerData?: unknown }) => {
    if (first) {
      first = false;
      started(message.workerData);
    } else listener?.(message);
  });
  process.on('disconnect', () => process.exit(0));
  // Ctrl-C reaches the whole process group: the server decides when its workers end (it lets running work finish).
  process.on('SIGINT', () => {});
  return {
    data,
    onMessage: <M>(l: (message: M) => void) => void (listener = l as (message: unknown) => void),
    post: (message) => void process.send!(message),
  };
}
