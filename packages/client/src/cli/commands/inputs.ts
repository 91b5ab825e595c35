/** Input of the CLI: paths (files as given, directories searched for trace and session files) and `--format`. */
import type { Session } from '@mce/core';
import { listInputFiles, readSessions, TRACE_FORMATS, type TraceFormat } from '../../ingest/index.js';
import type { Logger } from 'pino';
import { coalesceSessions } from '../../store/merge.js';
import { UsageError } from '../context.js';

export async function inputFiles(paths: readonly string[]): Promise<string[]> {
  const files = await listInputFiles(paths);
  if (files.length === 0) throw new UsageError(`${paths.join(', ')}: no .json, .jsonl or .ndjson files found`);
  return files;
}

/** `--format`, checked against the known trace formats. */
export function checkFormat(format: string | undefined): TraceFormat | undefined {
  if (format === undefined) return undefined;
  if (!TRACE_FORMATS.includes(format as TraceFormat)) {
    throw new UsageError(`--format must be one of ${TRACE_FORMATS.join(', ')} (got "${format}")`);
  }
  return format as TraceFormat;
}

/**
 * Every session of the input paths, read as one stream (a session split across files is one session), and sessions
 * written whole in several files merged by id as the store merges them: each session is computed once, over all of
 * its calls. Warnings are logged with the file they name.
 */
export async function readInputSessions(paths: readonly string[], format: TraceFormat | undefined, log: Logger): Promise<Session[]> {
  const read = await readSessions(await inputFiles(paths), format ? { format } : {});
  for (const w of read.warnings) log.warn(w, 'ingest warning');
  return coalesceSessions(read.sessions);
}
