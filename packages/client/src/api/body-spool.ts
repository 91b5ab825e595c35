/**
 * A request body read as it streams: its chunks kept in a list while they are few, concatenated once at the end; from
 * `fileFrom` bytes on, written to a file as they come (a batch at a time), so that a big body is never whole in the
 * server's memory nor copied into a buffer grown along the way.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';

export type SpooledBody = { bytes: Uint8Array } | { file: string; byteLength: number };

export interface SpoolOptions {
  /** From this many bytes the body goes to a file (the chunks kept so far first). */
  fileFrom: number;
  /** A fresh path for the file. */
  path(): Promise<string>;
  /** Sees each chunk as it comes; what it throws fails the read (a refusal decided on the first bytes). */
  inspect?(chunk: Uint8Array, total: number): void;
}

export async function spoolBody(body: ReadableStream<Uint8Array> | null, options: SpoolOptions): Promise<SpooledBody> {
  if (!body) return { bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const spool = new Spool(options);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return await spool.end();
      options.inspect?.(value, spool.total + value.byteLength);
      await spool.add(value);
    }
  } catch (error) {
    await spool.discard();
    throw error;
  } finally {
    // Left unread on a failure, not cancelled: the server answers, then drains or closes the connection.
    reader.releaseLock();
  }
}

class Spool {
  total = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #file: { path: string; handle: FileHandle } | undefined;

  constructor(readonly options: SpoolOptions) {}

  async add(chunk: Uint8Array): Promise<void> {
    this.total += chunk.byteLength;
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.byteLength;
    if (this.#pendingBytes >= this.options.fileFrom) await this.#flush();
  }

  async end(): Promise<SpooledBody> {
    if (!this.#file) return { bytes: this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes) };
    await this.#flush();
    await this.#file.handle.close();
    return { file: this.#file.path, byteLength: this.total };
  }

  async discard(): Promise<void> {
    this.#pending = [];
    const file = this.#file;
    this.#file = undefined;
    if (!file) return;
    await file.handle.close().catch(() => undefined);
    await rm(file.path, { force: true });
  }

  async #flush(): Promise<void> {
    if (!this.#file) {
      const path = await this.options.path();
      this.#file = { path, handle: await open(path, 'w') };
    }
    const batch = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    await this.#file.handle.writev(batch);
  }
}
