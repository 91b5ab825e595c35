/** Input of the CLI: paths (files as given, directories searched for trace and session files) and `--format`. */
import type { Session } from '@mce/core';
import { listInputFiles, readSessions, streamSessions, TRACE_FORMATS, type FileOutcome, type IngestWarning, type SkippedFile, type TraceFormat } from '@mce/ingest';
import type { Logger } from 'pino';
import { coalesceSessions } from '@mce/ingest';
import { SkippedInputError, UsageError, type CliIO } from '../context.js';
import { printable, warningLine } from '../format.js';

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

/** How the input files are read: `--format`, and `--strict` (an unreadable file ends the run instead of being skipped). */
export interface InputOptions {
  format: TraceFormat | undefined;
  strict?: boolean;
}

/**
 * How a command reports each input file, when there are several: `read FILE` or `skipped FILE: reason` on stderr;
 * with `--json`, log lines `{file, read}` / `{file, skipped}`.
 */
export function fileReporter(io: CliIO, log: Logger, json: boolean | undefined, files: readonly string[]): (file: string, outcome: FileOutcome) => void {
  if (files.length <= 1) return () => undefined;
  if (json) return (file, o) => (o.read ? log.info({ file, read: true }, 'input file read') : log.warn({ file, skipped: o.error.message }, 'input file skipped'));
  return (file, o) => io.stderr.write(o.read ? `read ${printable(file)}\n` : `skipped ${o.error.message}\n`);
}

/**
 * After a read that skipped files: all of them unreadable is bad input (the first one's error, exit 2); some of them,
 * a SkippedInputError (exit 3) once the output is written. `total`: how many files were given.
 */
export function skippedOutcome(skipped: readonly SkippedFile[], total: number): Error | undefined {
  if (skipped.length === 0) return undefined;
  if (skipped.length === total) return skipped[0]!.error;
  return new SkippedInputError(`${skipped.length} of ${total} input file(s) skipped as unreadable (named above); the others were read`);
}

/**
 * The sessions of input files as they are read, as `mce ingest` reads them (one stream over all the files, JSON Lines
 * line by line): a session is handed on once none of its spans was seen for the stream's window of spans, so memory
 * stays bounded whatever the size of the input. The stream's `warnings` and `skipped` files are complete once it is
 * read. An unreadable file is skipped (unless `strict`).
 */
export function streamInputSessions(
  files: readonly string[],
  input: InputOptions,
  reportFile: (file: string, outcome: FileOutcome) => void = () => undefined,
): ReturnType<typeof streamSessions> {
  return streamSessions(files, { ...(input.format ? { format: input.format } : {}), skipUnreadable: !input.strict, onFileDone: reportFile });
}

/**
 * Every session of the input paths, read as one stream (a session split across files is one session), and sessions
 * written whole in several files merged by id as the store merges them: each session is computed once, over all of
 * its calls. Each warning is reported, naming its file and place; each file, read or skipped, when there are several.
 * An unreadable file is skipped (unless `strict`): `skipped` says which.
 */
export async function readInputSessions(
  paths: readonly string[],
  input: InputOptions,
  report: (warning: IngestWarning) => void,
  reportFile: (file: string, outcome: FileOutcome) => void = () => undefined,
): Promise<{ sessions: Session[]; skipped: SkippedFile[]; files: number }> {
  const files = await inputFiles(paths);
  const read = await readSessions(files, { ...(input.format ? { format: input.format } : {}), skipUnreadable: !input.strict, onFileDone: reportFile });
  for (const w of read.warnings) report(w);
  return { sessions: coalesceSessions(read.sessions), skipped: read.skipped, files: files.length };
}
