/** `mce export --otlp`: stored results sent as gen_ai.evaluation.result log records over OTLP (docs/receiver.md). */
import type { Command } from 'commander';
import { EvaluationEventExporter, logsEndpoint } from '../../receiver/evaluation-events.js';
import { receiverSettings } from '../../receiver/settings.js';
import { UsageError, logger, openClient, type CliIO } from '../context.js';

export function registerExportCommand(program: Command, io: CliIO): void {
  program
    .command('export [session_ids...]')
    .description('send stored results as OpenTelemetry gen_ai.evaluation.result log records (OTLP/HTTP protobuf)')
    .option('--otlp', 'export over OTLP (the only target)')
    .option('--all', 'the results of every stored session')
    .option('--endpoint <url>', 'the logs endpoint (default receiver.export_otlp.endpoint, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs, http://localhost:4318/v1/logs)')
    .action(async (ids: string[], opts: { otlp?: boolean; all?: boolean; endpoint?: string }, cmd: Command) => {
      if (!opts.otlp) throw new UsageError('export: say where: --otlp');
      if ((ids.length > 0) === Boolean(opts.all)) throw new UsageError('export: give session ids or --all (one of them)');
      if (opts.endpoint !== undefined && !/^https?:\/\//.test(opts.endpoint)) throw new UsageError(`--endpoint must be an http(s) URL (got "${opts.endpoint}")`);
      await using client = await openClient(cmd, io, undefined, true);
      const endpoint = logsEndpoint(opts.endpoint ?? receiverSettings(client.config, io.env).exportOtlp.endpoint, io.env);
      const exporter = new EvaluationEventExporter(endpoint);
      const sessionIds = opts.all ? await client.store.listSessionIds() : ids;
      try {
        for (const id of sessionIds) {
          const session = await client.store.getSession(id);
          if (!session) throw new UsageError(`export: no stored session ${id}`);
          exporter.emit(session, await client.getMetrics(id, { recursive: true }));
        }
        await exporter.flush();
      } finally {
        await exporter.shutdown();
      }
      logger(cmd, io).info({ endpoint, sessions: sessionIds.length, records: exporter.emitted }, 'exported');
      io.stdout.write(`exported ${exporter.emitted} result(s) of ${sessionIds.length} session(s) to ${endpoint}\n`);
    });
}
