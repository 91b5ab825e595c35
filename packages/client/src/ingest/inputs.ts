/** `--input` arguments → trace/session files: files as given, directories expanded to their `.json`/`.jsonl`/`.pb` files. */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, IngestError } from './errors.js';

/** Trace and session files (JSON, JSON Lines, OTLP protobuf), gzipped or not. */
const INPUT_FILE = /\.(json|jsonl|ndjson|pb|binpb)(\.gz)?$/i;

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
    } else if (explicit || INPUT_FILE.test(p)) {
      out.push(p);
    }
  };
  for (const p of paths) await visit(p, true);
  return out;
}
