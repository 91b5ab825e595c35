/**
 * Which folders of one `node_modules` may hold a provider package, without reading hundreds of package.json files at
 * every command: the answer is kept in `node_modules/.cache/mce/providers.json` with the modification times of the
 * folder and of its `@scope` folders, and used while they are unchanged (installing, updating or removing a package
 * changes them). Linked packages (a workspace, `npm link`) are always candidates: their target can change unseen. A
 * folder mce cannot write to is scanned every time.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

interface FolderIndex {
  version: 1;
  /** Modification time of the folder (`.`) and of each `@scope` folder in it, when the index was made. */
  stamps: Record<string, number>;
  /** Entries (`name`, `@scope/name`) to inspect. */
  candidates: string[];
}

/** Could this package.json text hold an `mce` field? Most cannot: those are never parsed. */
export const MAY_HAVE_MCE_FIELD = /"mce"\s*:/;

const indexFile = (nodeModules: string) => join(nodeModules, '.cache', 'mce', 'providers.json');

function mtime(dir: string): number | undefined {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return undefined;
  }
}

function readIndex(nodeModules: string): FolderIndex | undefined {
  try {
    const index = JSON.parse(readFileSync(indexFile(nodeModules), 'utf8')) as FolderIndex;
    const fresh = index.version === 1 && Object.entries(index.stamps).every(([dir, stamp]) => mtime(join(nodeModules, dir)) === stamp);
    return fresh && Array.isArray(index.candidates) ? index : undefined;
  } catch {
    return undefined;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Whether a package folder is a link or has a package.json that may declare `mce`. */
function isCandidate(entry: Dirent, path: string): boolean {
  if (entry.isSymbolicLink()) return true;
  if (!entry.isDirectory()) return false;
  try {
    return MAY_HAVE_MCE_FIELD.test(readFileSync(join(path, 'package.json'), 'utf8'));
  } catch {
    return false;
  }
}

function scan(nodeModules: string, stamps: Record<string, number>): string[] {
  const candidates: string[] = [];
  for (const entry of entries(nodeModules)) {
    if (entry.name.startsWith('.')) continue;
    if (!entry.name.startsWith('@')) {
      if (isCandidate(entry, join(nodeModules, entry.name))) candidates.push(entry.name);
      continue;
    }
    const scope = join(nodeModules, entry.name);
    const stamp = mtime(scope);
    if (stamp !== undefined) stamps[entry.name] = stamp;
    for (const inner of entries(scope)) {
      if (isCandidate(inner, join(scope, inner.name))) candidates.push(`${entry.name}/${inner.name}`);
    }
  }
  return candidates;
}

function writeIndex(nodeModules: string, index: FolderIndex): void {
  // Written whole, then renamed: another command reading it meanwhile sees the old index or the new one.
  const temporary = `${indexFile(nodeModules)}.${process.pid}`;
  try {
    writeFileSync(temporary, JSON.stringify(index));
    renameSync(temporary, indexFile(nodeModules));
  } catch {
    // a full disk, say: scanned again next time
  }
}

/** The folders of `nodeModules` that may be provider packages (full paths), from its index when that is current. */
export function providerCandidates(nodeModules: string): string[] {
  const known = readIndex(nodeModules);
  if (known) return known.candidates.map((name) => join(nodeModules, name));
  if (mtime(nodeModules) === undefined) return [];
  // The index's folder first: creating it changes the folder's time, which must not make the index stale at once.
  let writable = true;
  try {
    mkdirSync(join(nodeModules, '.cache', 'mce'), { recursive: true });
  } catch {
    writable = false; // not ours to write (a system-wide installation): scanned every time
  }
  // Taken before the scan: a package installed meanwhile changes them, and the next command scans again.
  const stamps: Record<string, number> = { '.': mtime(nodeModules) as number };
  const candidates = scan(nodeModules, stamps);
  if (writable) writeIndex(nodeModules, { version: 1, stamps, candidates });
  return candidates.map((name) => join(nodeModules, name));
}
