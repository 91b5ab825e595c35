/** `mce receive`: the OTLP receiver alone (docs/receiver.md); `mce serve` mounts the same receiver beside the REST API. */
import type { Command } from 'commander';
import type { MCEClient } from '../../mce-client.js';
import { receiverPipeline, type ReceiverPipeline } from '../../receiver/pipeline.js';
import { queueEvaluator } from '../../receiver/queue-evaluator.js';
import { serveOtlp } from '../../receiver/server.js';
import { receiverSettings } from '../../receiver/settings.js';
import { UsageError, logger, openClient, type CliIO } from '../context.js';
import { loadWorker } from './worker.js';

export interface ReceiverFlags {
  exportOtlp?: boolean;
  sessionIdleMs?: string;
}

/** The receiver of a command: the config's `receiver:` section, the environment, then the flags. */
export async function startReceiver(client: MCEClient, flags: ReceiverFlags, cmd: Command, io: CliIO): Promise<ReceiverPipeline> {
  const settings = receiverSettings(client.config, io.env);
  if (flags.exportOtlp) settings.exportOtlp.enabled = true;
  if (flags.sessionIdleMs !== undefined) {
    const ms = Number(flags.sessionIdleMs);
    if (!/^\d+$/.test(flags.sessionIdleMs) || ms < 1) throw new UsageError(`--session-idle-ms must be a positive whole number (got "${flags.sessionIdleMs}")`);
    settings.sessionIdleMs = ms;
  }
  if (settings.exportOtlp.enabled && settings.evaluate !== 'in-process') throw new UsageError('--export-otlp needs receiver.evaluate: in-process (in queue mode the workers send the events: receiver.export_otlp in their configuration, or mce worker --export-otlp)');
  const evaluator = settings.evaluate === 'queue' ? queueEvaluator(await loadWorker(), client.config.worker, io.env) : undefined;
  return receiverPipeline(client, { settings, env: io.env, logger: logger(cmd, io), ...(evaluator ? { evaluator } : {}) });
}

/** Resolves at the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Closes the receiver, saying what it stored and evaluated on the way out (nothing when it held nothing). */
export async function closeReceiver(pipeline: ReceiverPipeline, io: CliIO): Promise<void> {
  const { flushedSpans, evaluated } = await pipeline.close();
  if (flushedSpans > 0 || evaluated > 0) io.stderr.write(`mce receiver stopped: ${flushedSpans} buffered span(s) stored, ${evaluated} open session(s) evaluated\n`);
}

export function registerReceiveCommand(program: Command, io: CliIO): void {
  program
    .command('receive')
    .description('receive OTLP/HTTP traces (POST /v1/traces), store them as sessions and evaluate each once complete')
    .option('--port <n>', 'port (4318 is the OTLP/HTTP default)', '4318')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--export-otlp', 'emit results as gen_ai.evaluation.result log records over OTLP (receiver.export_otlp)')
    .option('--session-idle-ms <ms>', 'a session is complete once idle this long (receiver.session_idle_ms)')
    .action(async (opts: { port: string; host: string } & ReceiverFlags, cmd: Command) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535 (got "${opts.port}")`);
      const client = await openClient(cmd, io);
      let pipeline: ReceiverPipeline | undefined;
      let server;
      try {
        pipeline = await startReceiver(client, opts, cmd, io);
        server = await serveOtlp(pipeline.app, { port, host: opts.host });
      } catch (error) {
        await pipeline?.close();
        await client.close();
        throw error;
      }
      io.stderr.write(`mce receiver listening on http://${opts.host}:${server.port}/v1/traces\n`);
      await untilSignal();
      // Refuse new requests (503) while the buffered spans are stored, then stop listening.
      await closeReceiver(pipeline, io);
      await server.close();
      await client.close();
    });
}
