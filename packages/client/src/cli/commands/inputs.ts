/** Input of the CLI: paths (files as given, directories searched for trace and session files) and `--format`. */
import type { Session } from '@mce/core';
import { listInputFiles, readSessions, TRACE_FORMATS, type IngestWarning, type TraceFormat } from '../../ingest/index.js';
import type { Logger } from 'pino';
import { coalesceSessions } from '../../ingest/merge.js';
import { UsageError, type CliIO } from '../context.js';
import { warningLine } from '../format.js';

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
 * How a command reports the warnings of what it read: for people, one line each on stderr naming its place
 * (`file:line:column: warning: …`); with `--json`, as JSON log lines with the same fields (stdout holds the answer).
 */
export function warningReporter(io: CliIO, log: Logger, json: boolean | undefined): (warning: IngestWarning) => void {
  return json ? (w) => log.warn(w, 'ingest warning') : (w) => io.stderr.write(`${warningLine(w)}\n`);
}

/**
 * Every session of the input paths, read as one stream (a session split across files is one session), and sessions
 * written whole in several files merged by id as the store merges them: each session is computed once, over all of
 * its calls. Each warning is reported, naming its file and place.
 */
export async function readInputSessions(paths: readonly string[], format: TraceFormat | undefined, report: (warning: IngestWarning) => void): Promise<Session[]> {
  const read = await readSessions(await inputFiles(paths), format ? { format } : {});
  for (const w of read.warnings) report(w);
  return coalesceSessions(read.sessions);
}
