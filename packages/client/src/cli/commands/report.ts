/**
 * `mce report <session_id…> | --input FILE… [-o report.html]`: one self-contained HTML file (inline CSS and script,
 * nothing fetched when opened) showing each session's call tree and timeline with every result beside its element.
 * Stored sessions show their stored results; `--input` computes the configured metrics without storing anything, and
 * then also shows the failed and skipped ones.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { SessionNotFoundError, type SessionComputation } from '@mce/core';
import { TRACE_FORMATS, type TraceFormat } from '@mce/ingest';
import { openStore } from '@mce/store';
import type { MCEClient } from '../../mce-client.js';
import { buildSessionReport, newestResults } from '../../report/index.js';
import { SectionSpool } from '../../report/spool.js';
import { checkFormat, inputFiles, streamInputSessions, warningReporter } from './inputs.js';
import { openReportOutput } from './report-output.js';
import { INPUT_CHUNKS, sessionChunks, storeInputChunk } from './session-chunks.js';
import { UsageError, logger, openClient, parseList, type CliIO } from '../context.js';

interface ReportOpts {
  input?: string[];
  format?: string;
  metrics?: string;
  output: string;
}

export function registerReportCommand(program: Command, io: CliIO): void {
  program
    .command('report [session_ids...]')
    .description('write a self-contained HTML report of stored sessions, or of trace files (--input, computed without storing)')
    .option('--input <files...>', 'trace or session files (any supported format; directories are searched)')
    .option('--format <format>', `force the input format (${TRACE_FORMATS.join(', ')})`)
    .option('--metrics <names>', 'with --input: comma-separated metric names (default: the configured set)')
    .option('-o, --output <file>', 'the HTML file to write ("-" for stdout)', 'report.html')
    .action(async (ids: string[], opts: ReportOpts, cmd: Command) => {
      if ((ids.length > 0) === Boolean(opts.input?.length)) throw new UsageError('report: give session ids or --input FILE… (one of them)');
      if (opts.metrics && !opts.input?.length) throw new UsageError('report: --metrics applies to --input only (stored sessions show their stored results)');
      const format = checkFormat(opts.format);
      const metrics = parseList(opts.metrics);
      const log = logger(cmd, io);
      const started = performance.now();
      // The section spool, and with --input the scratch store, live on disk in a directory removed at the end.
      await using work = await temporaryDirectory();
      // --input touches no store: a scratch one stands in (it merges a session's later part into its earlier one).
      await using scratch = opts.input?.length ? await openStore(`sqlite:${join(work.path, 'scratch.db')}`) : undefined;
      await using client = await openClient(cmd, io, undefined, !opts.input?.length, scratch);
      await using spool = await SectionSpool.create(work.path);
      const output = await openReportOutput(opts.output, io);
      let bytes: number;
      try {
        if (opts.input?.length) await computedReports(client, spool, { files: opts.input, format, metrics }, io, log);
        else await storedReports(client, spool, ids);
        bytes = await spool.writeDocument(output.write);
        await output.commit();
      } catch (error) {
        await output.abort();
        throw error;
      }
      const sessions = spool.sessionCount;
      log.info({ sessions, spans: spool.elementCount, bytes, ms: Math.round(performance.now() - started) }, 'report written');
      if (opts.output !== '-') io.stderr.write(`report: ${sessions} session${sessions === 1 ? '' : 's'} written to ${opts.output}\n`);
    });
}

async function temporaryDirectory(): Promise<AsyncDisposable & { path: string }> {
  const path = await mkdtemp(join(tmpdir(), 'mce-report-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/**
 * The input read and computed a chunk at a time, each session's section spooled as soon as it is computed: memory
 * holds a chunk, not the input. A session whose later part comes in a later chunk is merged by the scratch store,
 * computed again over the whole session, and reported once, in its first place, as merged.
 */
async function computedReports(
  client: MCEClient,
  spool: SectionSpool,
  input: { files: string[]; format: TraceFormat | undefined; metrics: string[] | undefined },
  io: CliIO,
  log: Logger,
): Promise<void> {
  const stream = streamInputSessions(await inputFiles(input.files), { format: input.format, strict: true });
  for await (const chunk of sessionChunks(stream, INPUT_CHUNKS)) {
    const sessions = await storeInputChunk(client, chunk, log);
    const computations = await client.compute(sessions, input.metrics ? { metrics: input.metrics } : {});
    const byId = new Map(computations.map((c) => [c.sessionId, c]));
    for (const s of sessions) await spool.add(buildSessionReport(s, byId.get(s.id) ?? empty(s.id)));
  }
  // Their places (line, column) in documents are known once the read is over.
  const report = warningReporter(io, log, false);
  for (const w of stream.warnings.list) report(w);
}

/** Stored sessions with their newest stored results (a store keeps no failed or skipped metrics: the report says so). */
async function storedReports(client: MCEClient, spool: SectionSpool, ids: readonly string[]): Promise<void> {
  const stored = await client.store.sessionExists(ids);
  const missing = ids.filter((id) => !stored.has(id));
  if (missing.length > 0) throw new SessionNotFoundError(missing);
  for (const id of ids) {
    const session = (await client.store.getSessions([id])).get(id);
    if (!session) throw new SessionNotFoundError([id]);
    const results = newestResults(await client.getMetrics(id, { recursive: true }));
    await spool.add(buildSessionReport(session, { ...empty(id), results }, false));
  }
}

const empty = (sessionId: string): SessionComputation => ({ sessionId, results: [], failed: [], skipped: [] });
