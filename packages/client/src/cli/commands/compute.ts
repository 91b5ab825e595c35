/**
 * `mce compute <session_id…> | --all | --input FILE…`: compute the configured metrics and store the results
 * (`--no-store` only prints). `--json` prints the stable shape `{"sessions":[SessionComputation…]}`, with
 * `"warnings"` when the run priced calls like gpt-4o (also said once on stderr).
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { SessionNotFoundError, type SessionComputation } from '@mce/core';
import { TRACE_FORMATS } from '@mce/ingest';
import { checkFormat, fileReporter, inputFiles, skippedOutcome, streamInputSessions, warningReporter } from './inputs.js';
import { INPUT_CHUNKS, computeInputChunk, sessionChunks } from './session-chunks.js';
import { unstoredSessionsOf, type ComputeRequest, type MCEClient } from '../../mce-client.js';
import { openStore } from '@mce/store';
import { formatComputation } from '../format.js';
import { priceFallbackWarning } from '../../price-fallback.js';
import { createProgress } from '../progress.js';
import { UsageError, logger, openClient, parseList, type CliIO } from '../context.js';

interface ComputeOpts {
  input?: string[];
  all?: boolean;
  format?: string;
  metrics?: string;
  json?: boolean;
  store: boolean;
  workerConfig?: string;
  runId?: string;
  recursive?: boolean;
  strict?: boolean;
}

const CHUNK = 100;

export function registerComputeCommand(program: Command, io: CliIO): void {
  program
    .command('compute [session_ids...]')
    .description('compute metrics for stored sessions, every stored session (--all) or trace files (--input)')
    .option('--input <files...>', 'trace or session files (any supported format; directories are searched)')
    .option('--all', 'every stored session')
    .option('--format <format>', `force the input format (${TRACE_FORMATS.join(', ')})`)
    .option('--strict', 'with --input: an unreadable file ends the run (exit 2) instead of being skipped (exit 3)')
    .option('--metrics <names>', 'comma-separated metric names (default: the configured set)')
    .option('--json', 'JSON output')
    .option('--no-store', 'print only: store neither sessions nor results')
    .option('--worker-config <file>', 'mce_config.yaml to use')
    .option('--run-id <id>', 'run id: re-running with the same id overwrites its results')
    .option('--no-recursive', 'only Session-level metrics')
    .action(async (ids: string[], opts: ComputeOpts, cmd: Command) => {
      const sources = [ids.length > 0, Boolean(opts.all), Boolean(opts.input?.length)].filter(Boolean).length;
      if (sources !== 1) throw new UsageError('compute: give session ids, --all, or --input FILE… (exactly one of them)');
      const format = checkFormat(opts.format);
      const metrics = parseList(opts.metrics);
      const request = {
        ...(metrics ? { metrics } : {}),
        ...(opts.runId ? { runId: opts.runId } : {}),
        ...(opts.recursive === false ? { recursive: false } : {}),
      };
      const log = logger(cmd, io);
      // --input --no-store touches no store at all (no file created, no database migrated): an in-memory one stands in.
      await using scratch = opts.input?.length && !opts.store ? await openStore('sqlite::memory:') : undefined;
      // Stored sessions are read from a store that must exist; --input may write into a new one.
      await using client = await openClient(cmd, io, opts.workerConfig, !opts.input?.length, scratch);
      const progress = createProgress(io.stderr as NodeJS.WriteStream, !opts.json);
      // Written as they come, never all held: a big input's results would not fit in memory (--json streams its list).
      const totals = { sessions: 0, results: 0, failed: 0, skipped: 0 };
      const json = opts.json ? jsonSessionsWriter(io) : undefined;
      // Stored sessions deleted while the run went on (by another process): said, and the others still computed.
      const gone: string[] = [];
      // Only the Session-level Cost results are kept (for the price-fallback warning), not the computations.
      const costs: SessionComputation[] = [];
      const emit = (batch: SessionComputation[]) => {
        for (const c of batch) {
          costs.push({ ...c, results: c.results.filter((r) => r.name === 'Cost' && r.level === 'Session'), failed: [], skipped: [] });
          totals.sessions++;
          totals.results += c.results.length;
          totals.failed += c.failed.length;
          totals.skipped += c.skipped.length;
          if (json) json.add(c);
          else io.stdout.write(`${formatComputation(c)}\n\n`);
        }
      };

      // With --input, files that could not be read (skipped): the exit code says so once the output is written.
      let partial: Error | undefined;
      if (opts.input?.length) {
        const files = await inputFiles(opts.input);
        const stream = streamInputSessions(files, { format, strict: Boolean(opts.strict) }, fileReporter(io, log, opts.json, files));
        // One run for the whole input: a session whose later part comes in a later chunk is computed again over the
        // merged session, and its results overwrite the earlier ones instead of adding a second run.
        const inputRequest = { ...request, runId: request.runId ?? randomUUID() };
        // Computed (and stored, and written out) a chunk at a time as the input is read, never held whole.
        for await (const chunk of sessionChunks(stream, INPUT_CHUNKS)) {
          emit((await computeInputChunk(client, chunk, inputRequest, Boolean(opts.store), log)).computations);
        }
        // Their places (line, column) in documents are known once the read is over.
        const report = warningReporter(io, log, opts.json);
        for (const w of stream.warnings.list) report(w);
        partial = skippedOutcome(stream.skipped, files.length);
        // Not one file could be read: that is bad input (nothing was computed: there was nothing to compute).
        if (stream.skipped.length === files.length) throw partial;
      } else {
        const sessionIds = opts.all ? await allSessionIds(client) : ids;
        progress.start(sessionIds.length, 'sessions');
        try {
          for (let i = 0; i < sessionIds.length; i += CHUNK) {
            const chunk = sessionIds.slice(i, i + CHUNK);
            const batch = await computeChunk(client, chunk, request, Boolean(opts.store), gone, i > 0 || Boolean(opts.all));
            progress.increment(chunk.length);
            emit(batch);
          }
        } finally {
          progress.stop();
        }
      }
      // One warning for the whole run, not one per call: which models were priced like gpt-4o, and how often.
      const fallback = priceFallbackWarning(costs);
      if (fallback) io.stderr.write(`warning: ${fallback.message}\n`);
      json?.end(fallback ? { warnings: [fallback] } : {});
      const { failed } = totals;
      log.info({ ...totals, stored: Boolean(opts.store) }, 'computed');
      if (failed > 0) log.warn({ failed }, 'some metrics failed; their errors are in the output');
      if (gone.length > 0) {
        // Named on the command line, a session left uncomputed fails the run (after the others' output); under --all
        // it was simply deleted.
        if (!opts.all) throw new SessionNotFoundError(gone);
        log.warn({ sessions: gone }, 'sessions deleted while the run went on: not computed');
      }
      if (partial) throw partial;
    });
}

/**
 * One chunk of stored sessions computed (and stored): those deleted meanwhile — before they were read, or before their
 * results were written (the store keeps no result without its session) — go to `gone` and out of the chunk. Ids
 * already missing in the first chunk of named sessions are the user's mistake (`deletedMeanwhile` false): thrown.
 */
async function computeChunk(
  client: MCEClient,
  ids: readonly string[],
  request: ComputeRequest,
  store: boolean,
  gone: string[],
  deletedMeanwhile: boolean,
): Promise<SessionComputation[]> {
  let computations: SessionComputation[];
  try {
    computations = await client.computeStored(ids, request);
  } catch (error) {
    if (!(error instanceof SessionNotFoundError) || !deletedMeanwhile) throw error;
    gone.push(...error.sessionIds);
    const left = ids.filter((id) => !error.sessionIds.includes(id));
    return left.length > 0 ? computeChunk(client, left, request, store, gone, deletedMeanwhile) : [];
  }
  if (!store) return computations;
  const unstored = unstoredSessionsOf(await client.writeComputations(computations));
  gone.push(...unstored);
  return computations.filter((c) => !unstored.includes(c.sessionId));
}

/**
 * `{"sessions": [...]}` written one computation at a time, as `writeJson` would write the whole (two-space indent).
 * Ended only when the run completed: a run that failed leaves no document claiming to be whole.
 */
function jsonSessionsWriter(io: CliIO): { add(c: SessionComputation): void; end(extra: Record<string, unknown>): void } {
  let count = 0;
  return {
    add(c) {
      io.stdout.write(`${count++ === 0 ? '{\n  "sessions": [\n' : ',\n'}${JSON.stringify(c, null, 2).replace(/^/gm, '    ')}`);
    },
    // `extra`: the document's other members after the list (`warnings`), as writeJson would place them.
    end(extra) {
      if (count === 0) return void io.stdout.write(`${JSON.stringify({ sessions: [], ...extra }, null, 2)}\n`);
      const rest = Object.entries(extra).map(([k, v]) => `,\n  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2).replace(/\n/g, '\n  ')}`).join('');
      io.stdout.write(`\n  ]${rest}\n}\n`);
    },
  };
}

async function allSessionIds(client: MCEClient): Promise<string[]> {
  return (await client.store.listSessionIds()).reverse();
}
