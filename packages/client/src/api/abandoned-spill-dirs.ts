/**
 * The spill directories (spill-files.ts) of servers that are gone: a server killed (SIGKILL, out of memory, the machine
 * stopped) never removed its own, with the bodies and answers it held. A server removes them when it starts: those of
 * the system's temporary folder whose name carries the id of a process that no longer runs, and that are directories
 * of this user (never a link). A live server's directory is left alone, and so is any other name.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spillDirOwner } from './spill-files.js';

/** The names of the directories removed. */
export async function removeAbandonedSpillDirs(parent: string = tmpdir()): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const owner = spillDirOwner(name);
    if (owner === undefined || isRunning(owner) || !(await isOwnDirectory(join(parent, name)))) continue;
    // Another server starting at the same time may remove it first: not a failure.
    await rm(join(parent, name), { recursive: true, force: true }).then(() => removed.push(name), () => undefined);
  }
  return removed;
}

/** Whether a process of this id runs (EPERM: it does, as another user's). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

async function isOwnDirectory(path: string): Promise<boolean> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isDirectory()) return false;
  return process.getuid === undefined || stats.uid === process.getuid();
}
