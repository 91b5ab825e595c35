/** Input of the CLI: paths (files as given, directories searched for trace and session files) and `--format`. */
import type { Session } from '@mce/core';
import { listInputFiles, readSessions, TRACE_FORMATS, type TraceFormat } from '../../ingest/index.js';
import type { Logger } from 'pino';
import { UsageError } from '../context.js';

export async function inputFiles(paths: readonly string[]): Promise<string[]> {
  const files = await listInputFiles(paths);
  if (files.length === 0) throw new UsageError(`${paths.join(', ')}: no .json or .jsonl files found`);
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

/** Every session of the input paths, each file's warnings logged with its name. */
export async function readInputSessions(paths: readonly string[], format: TraceFormat | undefined, log: Logger): Promise<Session[]> {
  const sessions: Session[] = [];
  for (const file of await inputFiles(paths)) {
    const read = await readSessions(file, format ? { format } : {});
    for (const w of read.warnings) log.warn({ file, ...w }, 'ingest warning');
    sessions.push(...read.sessions);
  }
  return sessions;
}
