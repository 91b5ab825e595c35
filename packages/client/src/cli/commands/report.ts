/**
 * `mce report <session_id…> | --input FILE… [-o report.html]`: one self-contained HTML file (inline CSS and script,
 * nothing fetched when opened) showing each session's call tree and timeline with every result beside its element.
 * Stored sessions show their stored results; `--input` computes the configured metrics without storing anything, and
 * then also shows the failed and skipped ones.
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { SessionNotFoundError, type Session, type SessionComputation } from '@mce/core';
import { TRACE_FORMATS } from '@mce/ingest';
import { openStore } from '@mce/store';
import type { MCEClient } from '../../mce-client.js';
import { buildSessionReport, newestResults, reportDocument, type SessionReport } from '../../report/index.js';
import { checkFormat, readInputSessions, warningReporter } from './inputs.js';
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
      // --input touches no store: an in-memory one stands in, as for `mce compute --no-store`.
      await using scratch = opts.input?.length ? await openStore('sqlite::memory:') : undefined;
      await using client = await openClient(cmd, io, undefined, !opts.input?.length, scratch);
      const reports = opts.input?.length
        ? await computedReports(client, (await readInputSessions(opts.input, { format, strict: true }, warningReporter(io, log, false))).sessions, metrics)
        : await storedReports(client, ids);
      const html = reportDocument(reports);
      if (opts.output === '-') io.stdout.write(html);
      else await writeFile(opts.output, html);
      const spans = reports.reduce((n, r) => n + r.elementCount, 0);
      log.info({ sessions: reports.length, spans, bytes: Buffer.byteLength(html), ms: Math.round(performance.now() - started) }, 'report written');
      if (opts.output !== '-') io.stderr.write(`report: ${reports.length} session${reports.length === 1 ? '' : 's'} written to ${opts.output}\n`);
    });
}

async function computedReports(client: MCEClient, sessions: Session[], metrics: string[] | undefined): Promise<SessionReport[]> {
  const computations = await client.compute(sessions, metrics ? { metrics } : {});
  const byId = new Map(computations.map((c) => [c.sessionId, c]));
  return sessions.map((s) => buildSessionReport(s, byId.get(s.id) ?? empty(s.id)));
}

/** Stored sessions with their newest stored results (a store keeps no failed or skipped metrics: the report says so). */
async function storedReports(client: MCEClient, ids: readonly string[]): Promise<SessionReport[]> {
  const sessions = await client.store.getSessions(ids);
  const missing = ids.filter((id) => !sessions.has(id));
  if (missing.length > 0) throw new SessionNotFoundError(missing);
  const reports: SessionReport[] = [];
  for (const id of ids) {
    const results = newestResults(await client.getMetrics(id, { recursive: true }));
    reports.push(buildSessionReport(sessions.get(id)!, { ...empty(id), results }, false));
  }
  return reports;
}

const empty = (sessionId: string): SessionComputation => ({ sessionId, results: [], failed: [], skipped: [] });
