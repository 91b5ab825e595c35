/** `--input` arguments → trace/session files: files as given, directories expanded to their `.json`/`.jsonl`/`.pb` files. */
import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, IngestError } from './errors.js';

/** Trace and session files (JSON, JSON Lines, OTLP protobuf), gzipped or not. */
const INPUT_FILE = /\.(json|jsonl|ndjson|pb|binpb)(\.gz)?$/i;

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'named pipe';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'device';
  return 'special file';
}

/** Files to ingest for the given paths; directories are walked (sorted, recursive), other files kept as given. */
export async function listInputFiles(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const visit = async (p: string, explicit: boolean): Promise<void> => {
    let info;
    try {
      info = await stat(p);
    } catch (err) {
      throw new IngestError(`cannot read: ${errorMessage(err)}`, p, undefined, { cause: err });
    }
    if (info.isDirectory()) {
      const entries = (await readdir(p)).sort();
      for (const e of entries) await visit(join(p, e), false);
    } else if (!info.isFile()) {
      // A FIFO, socket or device: reading one waits for a writer that may never come (the command hung).
      if (explicit) throw new IngestError(`not a regular file (a ${kindOf(info)}): give a file or a directory`, p);
    } else if (explicit || INPUT_FILE.test(p)) {
      out.push(p);
    }
  };
  for (const p of paths) await visit(p, true);
  return out;
}
