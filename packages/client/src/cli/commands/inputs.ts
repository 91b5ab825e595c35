/** Input paths of the CLI: files as given, directories searched for trace and session files. */
import { listInputFiles } from '../../ingest/index.js';
import { UsageError } from '../context.js';

export async function inputFiles(paths: readonly string[]): Promise<string[]> {
  const files = await listInputFiles(paths);
  if (files.length === 0) throw new UsageError(`${paths.join(', ')}: no .json or .jsonl files found`);
  return files;
}
