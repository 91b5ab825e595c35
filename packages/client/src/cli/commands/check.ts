/**
 * `mce check <session_id…> | --all | --input FILE… [--no-store]`: hold the results to the `thresholds:` of
 * mce_config.yaml. Exit 0 when every threshold holds, 1 when one does not or its metric failed to compute, 2 on a
 * usage error (no thresholds, an unknown metric, an unknown session). Prints a table, or `--json`; writes
 * `--junit FILE`; `--github` adds GitHub Actions annotations.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { SessionNotFoundError, type MetricEngine, type OntologyLevel } from '@mce/core';
import { ConfigError, type MceConfig, type Threshold } from '../../config/index.js';
import { TRACE_FORMATS, type IngestWarning, type TraceFormat } from '@mce/ingest';
import { openStore } from '@mce/store';
import type { MCEClient } from '../../mce-client.js';
import { evaluateSession, namesMetric, totals, type CheckCase, type CheckInput } from '../../check/evaluate.js';
import { junitXml } from '../../check/junit.js';
import { githubAnnotations } from '../../check/annotations.js';
import { formatCheckTable } from '../../check/table.js';
import { newestResults } from '../../report/newest.js';
import { checkFormat, inputFiles, streamInputSessions, warningReporter } from './inputs.js';
import { INPUT_CHUNKS, computeInputChunk, sessionChunks } from './session-chunks.js';
import { UsageError, logger, openClient, resolveConfig, writeJson, type CliIO } from '../context.js';

interface CheckOpts {
  input?: string[];
  all?: boolean;
  format?: string;
  store: boolean;
  json?: boolean;
  junit?: string;
  github?: boolean;
}

/** Some threshold was not held, or its metric failed: exit 1 (the verdicts are already printed). */
export class ThresholdsNotHeldError extends Error {
  override name = 'ThresholdsNotHeldError';
}

const CHUNK = 100;

export function registerCheckCommand(program: Command, io: CliIO): void {
  program
    .command('check [session_ids...]')
    .description('check results against the thresholds of mce_config.yaml (exit 1 when one is not held)')
    .option('--input <files...>', 'trace or session files: compute the thresholds\' metrics, then check')
    .option('--all', 'every stored session')
    .option('--format <format>', `force the input format (${TRACE_FORMATS.join(', ')})`)
    .option('--no-store', 'with --input: store neither sessions nor results')
    .option('--json', 'JSON output')
    .option('--junit <file>', 'also write the verdicts as JUnit XML')
    .option('--github', 'also print GitHub Actions annotations (::error) for thresholds not held')
    .action(async (ids: string[], opts: CheckOpts, cmd: Command) => {
      const sources = [ids.length > 0, Boolean(opts.all), Boolean(opts.input?.length)].filter(Boolean).length;
      if (sources !== 1) throw new UsageError('check: give session ids, --all, or --input FILE… (exactly one of them)');
      if (!opts.store && !opts.input?.length) throw new UsageError('check: --no-store applies to --input only');
      if (opts.json && opts.github) throw new UsageError('check: --json and --github both write to stdout; give one of them');
      const format = checkFormat(opts.format);
      const config = resolveConfig(cmd, io);
      if (config.thresholds.length === 0) throw new UsageError(`check: no thresholds in ${config.source ?? 'mce_config.yaml (none found)'}: add a thresholds: section`);
      const log = logger(cmd, io);
      await using scratch = opts.input?.length && !opts.store ? await openStore('sqlite::memory:') : undefined;
      await using client = await openClient(cmd, io, undefined, !opts.input?.length, scratch);
      checkThresholdMetrics(config, client.engine);
      const cases = opts.input?.length
        ? await inputCases(client, opts.input, format, config.thresholds, opts.store, { report: warningReporter(io, log, opts.json), log })
        : (await storedInputs(client, opts.all ? (await client.store.listSessionIds()).reverse() : ids)).flatMap((input) => evaluateSession(input, config.thresholds));
      const sum = totals(cases);
      if (opts.junit) await writeFile(opts.junit, junitXml(cases));
      if (opts.json) writeJson(io, { ...sum, cases: cases.map(jsonCase) });
      else io.stdout.write(`${formatCheckTable(cases)}\n\n${summaryLine(sum)}\n`);
      if (opts.github) for (const line of githubAnnotations(cases, config.source)) io.stdout.write(`${line}\n`);
      if (sum.failed + sum.errors > 0) throw new ThresholdsNotHeldError(`check: ${summaryLine(sum)}`);
    });
}

function summaryLine(t: ReturnType<typeof totals>): string {
  return `${t.checked} checked: ${t.passed} passed, ${t.failed} failed, ${t.errors} error${t.errors === 1 ? '' : 's'}, ${t.skipped} skipped`;
}

/** The stable `--json` shape of one verdict. */
function jsonCase(c: CheckCase) {
  const t = c.threshold;
  return {
    sessionId: c.sessionId,
    level: t.level,
    metric: t.metric,
    per: t.per,
    ...(t.min !== undefined ? { min: t.min } : {}),
    ...(t.max !== undefined ? { max: t.max } : {}),
    status: c.status,
    ...(c.value !== undefined ? { value: c.value } : {}),
    count: c.count,
    failing: c.failing,
    message: c.message,
  };
}

/** A threshold on a metric the engine does not have, or not at that level, is the file's mistake (at its line). */
function checkThresholdMetrics(config: MceConfig, engine: MetricEngine): void {
  const metrics = engine.registry.list().map((r) => r.metric.metadata);
  const problems = config.thresholds.flatMap((t) => {
    const found = metrics.filter((m) => namesMetric(t.metric, m.name, m.provider));
    if (found.length === 0) {
      const plugin = metrics.find((m) => m.name === t.metric);
      const hint = plugin ? `write a plugin's metric as ${plugin.provider}:${plugin.name}` : 'mce metric list shows them';
      return [{ line: t.line, field: t.field, message: `unknown metric "${t.metric}" (${hint})` }];
    }
    if (!found.some((m) => m.levels.includes(t.level))) return [{ line: t.line, field: t.field, message: `${t.metric} is not computed at ${t.level} (it is at ${found[0]!.levels.join(', ')})` }];
    return [];
  });
  if (problems.length > 0) throw new ConfigError(config.source ?? 'mce_config.yaml', problems);
}

/** The metrics the thresholds name, by level. */
function thresholdMetrics(thresholds: readonly Threshold[]): Partial<Record<OntologyLevel, string[]>> {
  const metrics: Partial<Record<OntologyLevel, string[]>> = {};
  for (const t of thresholds) {
    const names = (metrics[t.level] ??= []);
    if (!names.includes(t.metric)) names.push(t.metric);
  }
  return metrics;
}

/**
 * The verdicts on the input files' sessions: the thresholds' metrics computed (and stored unless --no-store) a chunk
 * at a time as the files are read, as `mce compute --input` does, and only the verdicts kept, so memory holds one
 * chunk's sessions, not the input. A session whose later part comes in a later chunk is checked again: with a store,
 * over the stored, merged session (its earlier verdicts replaced); with --no-store, that part on its own as well.
 */
async function inputCases(
  client: MCEClient,
  paths: readonly string[],
  format: TraceFormat | undefined,
  thresholds: readonly Threshold[],
  store: boolean,
  out: { report: (warning: IngestWarning) => void; log: Logger },
): Promise<CheckCase[]> {
  const stream = streamInputSessions(await inputFiles(paths), { format, strict: true });
  const request = { metrics: thresholdMetrics(thresholds), runId: randomUUID() };
  const bySession = new Map<string, CheckCase[]>();
  for await (const chunk of sessionChunks(stream, INPUT_CHUNKS)) {
    const { sessions, computations } = await computeInputChunk(client, chunk, request, store, out.log);
    const byId = new Map(computations.map((c) => [c.sessionId, c]));
    for (const session of sessions) {
      const c = byId.get(session.id);
      const cases = evaluateSession({ session, results: c?.results ?? [], failed: c?.failed ?? [], skipped: c?.skipped ?? [], outcomesKnown: true }, thresholds);
      bySession.set(session.id, store ? cases : [...(bySession.get(session.id) ?? []), ...cases]);
    }
  }
  // Their places (line, column) in documents are known once the read is over.
  for (const w of stream.warnings.list) out.report(w);
  return [...bySession.values()].flat();
}

async function storedInputs(client: MCEClient, ids: readonly string[]): Promise<CheckInput[]> {
  const inputs: CheckInput[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const sessions = await client.store.getSessions(chunk);
    const missing = chunk.filter((id) => !sessions.has(id));
    if (missing.length > 0) throw new SessionNotFoundError(missing);
    for (const id of chunk) {
      // The newest run's result of each metric on each element: an older run's must not fail (or pass) the build.
      const results = newestResults(await client.getMetrics(id, { recursive: true }));
      inputs.push({ session: sessions.get(id)!, results, failed: [], skipped: [], outcomesKnown: false });
    }
  }
  return inputs;
}
