/**
 * `mce kg metric get <session_id>`: a session's stored results, in the same JSON shape as `compute --json`.
 * `mce kg results`: stored results across sessions, in the JSON shape of `GET /results`.
 */
import type { Command } from 'commander';
import type { SessionComputation } from '@mce/core';
import { formatComputation, formatResultRows } from '../format.js';
import { openClient, parseList, writeJson, type CliIO } from '../context.js';
import { parseResultQueryText, type ResultQueryField } from '../../store/result-query-text.js';

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

interface ResultsOptions {
  metrics?: string;
  levels?: string;
  session: string[];
  from?: string;
  to?: string;
  min?: string;
  max?: string;
  limit: string;
  offset: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

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
      const results = await client.getMetrics(sessionId, { recursive: Boolean(opts.recursive), ...(metricIds ? { metricIds } : {}) });
      const computation: SessionComputation = { sessionId, results, failed: [], skipped: [] };
      if (opts.json) return writeJson(io, { sessions: [computation] });
      io.stdout.write(`${formatComputation(computation)}\n`);
    });
  kg
    .command('results')
    .description('stored results across sessions, newest first')
    .option('--metrics <names>', 'only these metrics: name or provider:name, comma-separated')
    .option('--levels <levels>', 'only results measuring these ontology classes (Session, LLMCall, …), comma-separated')
    .option('--session <id>', "only this session's results (repeat the option for several)", collect, [])
    .option('--from <time>', 'results computed at or after this time (ISO or epoch ms)')
    .option('--to <time>', 'results computed at or before this time')
    .option('--min <value>', 'results whose value is at least this')
    .option('--max <value>', 'results whose value is at most this')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'page offset', '0')
    .option('--json', 'JSON output (the rows of GET /results)')
    .action(async (opts: ResultsOptions, cmd: Command) => {
      const given = (value: string | undefined) => (value === undefined ? undefined : [value]);
      const query = parseResultQueryText(
        {
          metrics: given(opts.metrics),
          levels: given(opts.levels),
          sessionIds: opts.session.length > 0 ? opts.session : undefined,
          from: given(opts.from),
          to: given(opts.to),
          min: given(opts.min),
          max: given(opts.max),
          limit: [opts.limit],
          offset: [opts.offset],
        },
        { label: (field) => OPTION_OF[field], name: (field) => OPTION_OF[field] },
      );
      await using client = await openClient(cmd, io, undefined, true);
      const rows = await client.queryResults(query);
      if (opts.json) return writeJson(io, rows);
      io.stdout.write(`${formatResultRows(rows)}\n`);
    });
}
