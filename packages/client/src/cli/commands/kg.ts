/**
 * `mce kg metric get <session_id>`: a session's stored results, in the same JSON shape as `compute --json`.
 * `mce kg results`: stored results across sessions, in the JSON shape of `GET /results`.
 * `mce kg summary`: figures of those results per metric and level, in the JSON shape of `GET /results/summary`.
 */
import type { Command } from 'commander';
import type { SessionComputation } from '@mce/core';
import { formatComputation, formatResultRows, formatSummaryRows } from '../format.js';
import { openClient, parseList, writeJson, type CliIO } from '../context.js';
import { parseResultQueryText, type ResultQueryField, type ResultQueryText } from '@mce/store';
import type { ResultQuery } from '@mce/store';

/** The option of each result-query field. */
const OPTION_OF: Readonly<Record<ResultQueryField, string>> = {
  metrics: '--metrics',
  levels: '--levels',
  sessionIds: '--session',
  from: '--from',
  to: '--to',
  min: '--min',
  max: '--max',
  limit: '--limit',
  offset: '--offset',
};

/** The filters of `kg results` and `kg summary`, as typed. */
interface FilterOptions {
  metrics?: string;
  levels?: string;
  session: string[];
  from?: string;
  to?: string;
  min?: string;
  max?: string;
  json?: boolean;
}

interface ResultsOptions extends FilterOptions {
  limit: string;
  offset: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds the filter options of a result query to `command`. */
function withFilterOptions(command: Command): Command {
  return command
    .option('--metrics <names>', 'only these metrics: name or provider:name, comma-separated')
    .option('--levels <levels>', 'only results measuring these ontology classes (Session, LLMCall, …), comma-separated')
    .option('--session <id>', "only this session's results (repeat the option for several)", collect, [])
    .option('--from <time>', 'results computed at or after this time (ISO or epoch ms)')
    .option('--to <time>', 'results computed at or before this time')
    .option('--min <value>', 'results whose value is at least this')
    .option('--max <value>', 'results whose value is at most this');
}

/** The query the options give (`page`: limit and offset, for the commands that page); exit 2 naming a bad option. */
function queryOf(opts: FilterOptions, page: Pick<ResultQueryText, 'limit' | 'offset'> = {}): ResultQuery {
  const given = (value: string | undefined) => (value === undefined ? undefined : [value]);
  return parseResultQueryText(
    {
      metrics: given(opts.metrics),
      levels: given(opts.levels),
      sessionIds: opts.session.length > 0 ? opts.session : undefined,
      from: given(opts.from),
      to: given(opts.to),
      min: given(opts.min),
      max: given(opts.max),
      ...page,
    },
    { label: (field) => OPTION_OF[field], name: (field) => OPTION_OF[field] },
  );
}

export function registerKgCommands(program: Command, io: CliIO): void {
  const kg = program.command('kg').description('the knowledge graph');
  kg
    .command('metric')
    .description('stored metric results')
    .command('get <session_id>')
    .description("a session's stored results, newest first")
    .option('--recursive', "also the results of the session's calls")
    .option('--metrics <names>', 'only these metric names (comma-separated)')
    .option('--json', 'JSON output (same shape as compute --json)')
    .action(async (sessionId: string, opts: { recursive?: boolean; metrics?: string; json?: boolean }, cmd: Command) => {
      await using client = await openClient(cmd, io, undefined, true);
      const metricIds = parseList(opts.metrics);
      const results = await client.getMetrics(sessionId, { computeMissing: false, recursive: Boolean(opts.recursive), ...(metricIds ? { metricIds } : {}) });
      const computation: SessionComputation = { sessionId, results, failed: [], skipped: [] };
      if (opts.json) return writeJson(io, { sessions: [computation] });
      io.stdout.write(`${formatComputation(computation)}\n`);
    });
  withFilterOptions(kg.command('results').description('stored results across sessions, newest first'))
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'page offset', '0')
    .option('--json', 'JSON output (the rows of GET /results)')
    .action(async (opts: ResultsOptions, cmd: Command) => {
      const query = queryOf(opts, { limit: [opts.limit], offset: [opts.offset] });
      await using client = await openClient(cmd, io, undefined, true);
      const rows = await client.queryResults(query);
      if (opts.json) return writeJson(io, rows);
      io.stdout.write(`${formatResultRows(rows)}\n`);
    });
  withFilterOptions(kg.command('summary').description('figures of stored results per metric and level: count, mean, nearest-rank percentiles, …'))
    .option('--json', 'JSON output (the rows of GET /results/summary)')
    .action(async (opts: FilterOptions, cmd: Command) => {
      const query = queryOf(opts);
      await using client = await openClient(cmd, io, undefined, true);
      const rows = await client.summarizeResults(query);
      if (opts.json) return writeJson(io, rows);
      io.stdout.write(`${formatSummaryRows(rows)}\n`);
    });
}
