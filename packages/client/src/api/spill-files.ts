/**
 * Temporary files that carry big bytes between the server and its worker processes (a body to read, a computation's
 * answer): sent through the process channel they would be serialised and reassembled on the event loop (~300 ms for
 * 30 MB, measured); written and read through files they are copied by the system, off the loop. The directory is made
 * at the first file and removed on close.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class SpillFiles {
  #dir: Promise<string> | undefined;
  #next = 0;

  /** A fresh path (no file is made). */
  async path(name: string): Promise<string> {
    this.#dir ??= mkdtemp(join(tmpdir(), 'mce-api-'));
    return join(await this.#dir, `${name}-${this.#next++}`);
  }

  async close(): Promise<void> {
    const dir = this.#dir;
    this.#dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true });
  }
}
