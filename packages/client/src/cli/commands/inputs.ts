/** Input paths of the CLI: files as given, directories searched (sorted) for trace and session files. */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../context.js';

const TRACE_FILE = /\.(json|jsonl|ndjson)$/i;

export async function expandInputs(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new UsageError(`${path}: no such file or directory`);
    if (!info.isDirectory()) {
      files.push(path);
      continue;
    }
    const entries = (await readdir(path, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile() && TRACE_FILE.test(e.name))
      .map((e) => join(e.parentPath, e.name))
      .sort();
    if (entries.length === 0) throw new UsageError(`${path}: no .json, .jsonl or .ndjson files in this directory`);
    files.push(...entries);
  }
  return files;
}
