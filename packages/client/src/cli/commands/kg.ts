/** `mce kg metric get <session_id>`: stored results, in the same JSON shape as `compute --json`. */
import type { Command } from 'commander';
import type { SessionComputation } from '@mce/core';
import { formatComputation } from '../format.js';
import { openClient, parseList, writeJson, type CliIO } from '../context.js';

export function registerKgCommands(program: Command, io: CliIO): void {
  program
    .command('kg')
    .description('the knowledge graph')
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
}
