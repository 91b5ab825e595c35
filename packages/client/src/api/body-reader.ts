/**
 * Reads `POST /sessions` bodies off the event loop: a big body's JSON parse and validation take about a second per
 * 20 MB, during which nothing else (not even `/healthz`) would be answered. Bodies from BIG_BODY_CHARS on go to one
 * worker thread, one at a time (a flood of them is parsed one after the other, not all at once in the heap); smaller
 * ones are read in place. A worker that dies (out of its own memory) fails its body, not the server.
 */
import { MceError } from '@mce/core';
import { rm, writeFile } from 'node:fs/promises';
import { builtWorker } from './built-worker.js';
import { IdleThread } from './idle-thread.js';
import { readSessionBody, type SessionBody } from './session-body.js';
import { SpillFiles } from './spill-files.js';

/** From here (characters of a text, bytes of a body) a body is read in the worker thread (a smaller one takes under a few milliseconds in place). */
export const BIG_BODY_CHARS = 512 * 1024;

/** More big bodies than the reader lets wait: the server is busy, retry. */
export class BodyReaderBusyError extends MceError {
  readonly kind = 'unavailable' as const;
}

/**
 * Parsed, a session body takes several times its size in the heap. A body over the thread's heap divided by this is
 * refused before it is read: a worker thread that runs out of memory inside JSON.parse can abort the whole process
 * (V8's fatal out-of-memory, seen in tests), not only itself, so its heap limit is a last resort, not the rule.
 */
export const BODY_HEAP_FACTOR = 8;

/** A body too big for the memory the reader gives one body (413). */
export class BodyNeedsMoreMemoryError extends MceError {
  readonly kind = 'bad-input' as const;
}

type Reply = { id: number; body?: SessionBody; failure?: string };

export class BodyReader {
  readonly #maxWaiting: number;
  readonly #maxBodyBytes: number;
  readonly #thread: IdleThread<Reply> | undefined;
  readonly #files = new SpillFiles();

  constructor(options: { maxWaiting?: number; heapMb?: number } = {}) {
    this.#maxWaiting = options.maxWaiting ?? 8;
    const heapMb = options.heapMb ?? 1024;
    this.#maxBodyBytes = Math.floor((heapMb * 1024 * 1024) / BODY_HEAP_FACTOR);
    const file = builtWorker('body-worker');
    this.#thread = file && new IdleThread<Reply>(file, {
      name: 'the body reader thread',
      heapMb,
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
   * A body as its bytes: a big one is written to a file (off the event loop) that the worker reads and decodes, so
   * neither the decoding (~1 ms per MB) nor a copy of it through the worker's channel holds the event loop. Its buffer
   * is then detached (freed now; the caller can no longer read it), as a buffer moved to a thread is.
   */
  async readBytes(bytes: Uint8Array): Promise<SessionBody> {
    if (bytes.byteLength < BIG_BODY_CHARS || !this.#thread) return readSessionBody(new TextDecoder().decode(bytes));
    this.#refusedIfTooBig(bytes.byteLength);
    const file = await this.#files.path('body');
    await writeFile(file, bytes);
    if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) structuredClone(undefined, { transfer: [bytes.buffer as ArrayBuffer] });
    try {
      return await this.#inThread({ file });
    } finally {
      await rm(file, { force: true });
    }
  }

  #refusedIfTooBig(size: number): void {
    if (size > this.#maxBodyBytes) {
      throw new BodyNeedsMoreMemoryError(`request body needs more memory to read than the server gives one body (${size} bytes, at most ${this.#maxBodyBytes})`);
    }
  }

  async #inThread(message: { text?: string; file?: string }): Promise<SessionBody> {
    if (message.text !== undefined) this.#refusedIfTooBig(message.text.length);
    const thread = this.#thread!;
    if (thread.waiting >= this.#maxWaiting) throw new BodyReaderBusyError(`${thread.waiting} large bodies are being read already; retry`);
    return (await thread.request(message)).body as SessionBody;
  }

  async close(): Promise<void> {
    await this.#thread?.close();
    await this.#files.close();
  }
}
