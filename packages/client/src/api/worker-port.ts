/**
 * The side of a worker module (body-worker, compute-worker) that talks to the server, in the child process
 * idle-thread.ts starts: its start data, the messages it is sent, and how it answers.
 */

export interface WorkerPort {
  /** What the server started it with (the process's first message). */
  readonly data: Promise<unknown>;
  onMessage<M>(listener: (message: M) => void): void;
  /** Copied through the process's channel (big bytes go through a file: spill-files.ts). */
  post(message: object): void;
}

/** The first message is the start data; the process ends when the server closes its channel. */
export function workerPort(): WorkerPort {
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
