/**
 * Reads `POST /sessions` bodies off the event loop: a big body's JSON parse and validation take about a second per
 * 20 MB, during which nothing else (not even `/healthz`) would be answered. Bodies from BIG_BODY_CHARS on go to one
 * worker thread, one at a time (a flood of them is parsed one after the other, not all at once in the heap); smaller
 * ones are read in place. A worker that dies (out of its own memory) fails its body, not the server.
 */
import { MceError } from '@mce/core';
import { rm } from 'node:fs/promises';
import { spoolBody } from './body-spool.js';
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

const NEEDS_MORE_MEMORY = 'request body needs more memory to read than the server gives one body';

type Reply = { id: number; body?: SessionBody; failure?: string };

export interface BodyReadOptions {
  /** The size the request declares (Content-Length), when it does. */
  declaredBytes?: number;
  /** Sees each chunk as it comes; what it throws fails the read. */
  inspect?(chunk: Uint8Array): void;
}

// As `Request.text()` decodes: UTF-8, a BOM dropped.
const utf8 = new TextDecoder();

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
   * A body as it streams (body-spool.ts): a small one is read in place from its chunks; a big one is written to a file
   * as it comes, which the worker reads and decodes, so that neither its decoding (~1 ms per MB) nor a copy of it
   * through the worker's channel holds the event loop, and the server never holds the whole of it. A body declared
   * (Content-Length) or found too big for the worker's memory is refused before or as it is read.
   */
  async readStream(body: ReadableStream<Uint8Array> | null, options: BodyReadOptions = {}): Promise<SessionBody> {
    const threaded = this.#thread !== undefined;
    if (threaded && options.declaredBytes !== undefined) this.#refusedIfTooBig(options.declaredBytes);
    const spooled = await spoolBody(body, {
      fileFrom: threaded ? BIG_BODY_CHARS : Infinity,
      path: () => this.#files.path('body'),
      inspect: (chunk, total) => {
        options.inspect?.(chunk);
        if (threaded && total > this.#maxBodyBytes) throw new BodyNeedsMoreMemoryError(`${NEEDS_MORE_MEMORY} (more than ${this.#maxBodyBytes} bytes)`);
      },
    });
    if ('bytes' in spooled) return readSessionBody(utf8.decode(spooled.bytes));
    try {
      return await this.#inThread({ file: spooled.file });
    } finally {
      await rm(spooled.file, { force: true });
    }
  }

  #refusedIfTooBig(size: number): void {
    if (size > this.#maxBodyBytes) {
      throw new BodyNeedsMoreMemoryError(`${NEEDS_MORE_MEMORY} (${size} bytes, at most ${this.#maxBodyBytes})`);
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
