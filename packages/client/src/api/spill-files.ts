/**
 * Temporary files that carry big bytes between the server and its worker processes (a body to read, a computation's
 * answer): sent through the process channel they would be serialised and reassembled on the event loop (~300 ms for
 * 30 MB, measured); written and read through files they are copied by the system, off the loop. The directory is made
 * at the first file and removed on close; its name carries the server's process id, so that the directory of a server
 * killed before it could close is known to be nobody's (abandoned-spill-dirs.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'mce-api-';

/** The process id a spill directory's name carries (`mce-api-<pid>-XXXXXX`), undefined for any other name. */
export function spillDirOwner(name: string): number | undefined {
  const match = /^mce-api-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

export class SpillFiles {
  #dir: Promise<string> | undefined;
  #next = 0;

  /** A fresh path (no file is made). */
  async path(name: string): Promise<string> {
    this.#dir ??= mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
    return join(await this.#dir, `${name}-${this.#next++}`);
  }

  async close(): Promise<void> {
    const dir = this.#dir;
    this.#dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true });
  }
}
