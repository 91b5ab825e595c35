/**
 * Reads `POST /sessions` bodies off the event loop: a big body's JSON parse and validation take about a second per
 * 20 MB, during which nothing else (not even `/healthz`) would be answered. Bodies from BIG_BODY_CHARS on go to one
 * worker thread, one at a time (a flood of them is parsed one after the other, not all at once in the heap); smaller
 * ones are read in place. A worker that dies (out of its own memory) fails its body, not the server.
 */
import { MceError } from '@mce/core';
import { builtWorker } from './built-worker.js';
import { IdleThread } from './idle-thread.js';
import { readSessionBody, type SessionBody } from './session-body.js';

/** From here (characters of a text, bytes of a body) a body is read in the worker thread (a smaller one takes under a few milliseconds in place). */
export const BIG_BODY_CHARS = 512 * 1024;

/** More big bodies than the reader lets wait: the server is busy, retry. */
export class BodyReaderBusyError extends MceError {
  readonly kind = 'unavailable' as const;
}

type Reply = { id: number; body?: SessionBody; failure?: string };

export class BodyReader {
  readonly #maxWaiting: number;
  readonly #thread: IdleThread<Reply> | undefined;

  constructor(options: { maxWaiting?: number; heapMb?: number } = {}) {
    this.#maxWaiting = options.maxWaiting ?? 8;
    const file = builtWorker('body-worker');
    this.#thread = file && new IdleThread<Reply>(file, {
      name: 'the body reader thread',
      heapMb: options.heapMb ?? 1024,
      failureOf: (reply) => (reply.body ? undefined : new Error(reply.failure)),
    });
  }

  /** Whether big bodies go to a worker thread (false: no built worker file; they are read in place). */
  get threaded(): boolean {
    return this.#thread !== undefined;
  }

  async read(text: string): Promise<SessionBody> {
    if (text.length < BIG_BODY_CHARS || !this.#thread) return readSessionBody(text);
    return this.#inThread({ text });
  }

  /**
   * A body as its bytes: a big one is moved to the thread (its buffer transferred, not copied) and decoded there, so
   * neither the decoding (~1 ms per MB) nor the copy of its text to the thread holds the event loop.
   */
  async readBytes(bytes: Uint8Array): Promise<SessionBody> {
    if (bytes.byteLength < BIG_BODY_CHARS || !this.#thread) return readSessionBody(new TextDecoder().decode(bytes));
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return this.#inThread({ bytes: own }, [own.buffer as ArrayBuffer]);
  }

  async #inThread(message: { text?: string; bytes?: Uint8Array }, transfer: ArrayBuffer[] = []): Promise<SessionBody> {
    const thread = this.#thread!;
    if (thread.waiting >= this.#maxWaiting) throw new BodyReaderBusyError(`${thread.waiting} large bodies are being read already; retry`);
    return (await thread.request(message, transfer)).body as SessionBody;
  }

  close(): Promise<void> {
    return this.#thread?.close() ?? Promise.resolve();
  }
}
