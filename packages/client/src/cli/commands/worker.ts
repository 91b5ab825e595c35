/**
 * `mce worker` and `mce enqueue`: the RabbitMQ side lives in `@mce/worker` (which depends on this package), so it is
 * loaded only when these commands run, and only if installed.
 */
import type { Command } from 'commander';
import type { KnowledgeGraphStore } from '@mce/store';
import type { MCEClient } from '../../mce-client.js';
import { MCEWorkerService } from '../../worker-service.js';
import { workerEvents, type WorkerEvents } from '../../receiver/worker-events.js';
import { logLineRedactor } from '../../api/redact.js';
import { UsageError, logger, openClient, resolveConfig, type CliIO } from '../context.js';

interface WorkerModule {
  workerConfigFrom(
    section: Record<string, unknown>,
    env: NodeJS.ProcessEnv,
  ): { amqpUrl: string; queue: string; queueArguments: Record<string, string | number | boolean> };
  runWorker(options: { processor: unknown; config: unknown; logger?: unknown }): Promise<{ exitCode: number; reason: string }>;
  createLogger(options: { redact?: (line: string) => string }): unknown;
  openStored(open: () => Promise<MCEClient>, openWithout: (store: KnowledgeGraphStore) => Promise<MCEClient>): Promise<MCEClient | Error>;
  processorWhenStored(opened: MCEClient | Error, open: () => Promise<MCEClient>, processorOf: (client: MCEClient) => MCEWorkerService): unknown;
  enqueueSessions(
    amqpUrl: string,
    queue: string,
    ids: readonly string[],
    options?: { perMessage?: number; queueArguments?: Record<string, string | number | boolean> },
  ): Promise<{ messages: number; sessions: number }>;
}

export async function loadWorker(): Promise<WorkerModule> {
  const name = '@mce/worker';
  try {
    return (await import(name)) as WorkerModule;
  } catch (error) {
    throw new UsageError(`this command needs the ${name} package (npm install ${name}): ${(error as Error).message}`);
  }
}

export function registerWorkerCommands(program: Command, io: CliIO): void {
  program
    .command('worker')
    .description('consume the new_session_to_mce queue: compute each session and store its results')
    .option('--worker-config <file>', 'mce_config.yaml to use (its worker: section configures the queue)')
    .option('--export-otlp', 'send stored results as gen_ai.evaluation.result log records over OTLP (receiver.export_otlp)')
    .action(async (opts: { workerConfig?: string; exportOtlp?: boolean }, cmd: Command) => {
      const mod = await loadWorker();
      // The store must be there (messages name sessions stored before): over a new, empty one (a misspelt schema=)
      // the worker would dead-letter every message; it waits for it instead, not ready.
      const open = () => openClient(cmd, io, opts.workerConfig, true);
      const opened = await mod.openStored(open, (store) => openClient(cmd, io, opts.workerConfig, false, store));
      const log = logger(cmd, io);
      let client = opened instanceof Error ? undefined : opened;
      let result: { exitCode: number; reason: string };
      let events: WorkerEvents | undefined;
      try {
        const mceConfig = client?.config ?? resolveConfig(cmd, io, opts.workerConfig);
        const config = mod.workerConfigFrom(mceConfig.worker, io.env);
        events = await workerEvents(mceConfig, io.env, (error) => log.warn({ err: error }, 'results stored, but their evaluation events could not be sent'), Boolean(opts.exportOtlp));
        const processor = mod.processorWhenStored(opened, open, (c) => new MCEWorkerService((client = c), events?.options));
        // The secrets of the environment (the judge's key, store passwords, a URL's password) never in a line.
        result = await mod.runWorker({ processor, config, logger: mod.createLogger({ redact: logLineRedactor(io.env) }) });
      } catch (error) {
        await events?.shutdown();
        await client?.close();
        throw error;
      }
      await events?.shutdown();
      if (result.exitCode === 0) return client?.close();
      if (result.exitCode === 2) {
        // Stopped on its configuration (the broker refused the credentials): nothing is in flight.
        await client?.close();
        throw new UsageError(`worker stopped: ${result.reason}`);
      }
      // Past the shutdown deadline a batch may still be running: closing the client would wait for it (the store's
      // pool ends only when its queries do). Leave now, as mce-worker does; unacked messages go back to the queue.
      if (io.exitNow) {
        io.stderr.write(`mce: worker stopped: ${result.reason}\n`);
        io.exitNow(1);
      }
      await client?.close();
      throw new Error(`worker stopped: ${result.reason}`);
    });

  program
    .command('enqueue [session_ids...]')
    .description('publish session ids to the worker queue (with publisher confirms)')
    .option('--all', 'every stored session')
    .option('--per-message <n>', 'session ids per message', '1')
    .option('--worker-config <file>', 'mce_config.yaml to use (its worker: section names the queue)')
    .action(async (ids: string[], opts: { all?: boolean; perMessage: string; workerConfig?: string }, cmd: Command) => {
      if ((ids.length > 0) === Boolean(opts.all)) throw new UsageError('enqueue: give session ids or --all (one of them)');
      const perMessage = Number(opts.perMessage);
      if (!Number.isInteger(perMessage) || perMessage < 1) throw new UsageError(`--per-message must be an integer ≥ 1 (got "${opts.perMessage}")`);
      const mod = await loadWorker();
      const config = resolveConfig(cmd, io, opts.workerConfig);
      const { amqpUrl, queue, queueArguments } = mod.workerConfigFrom(config.worker, io.env);
      let sessionIds = ids;
      if (opts.all) {
        await using client = await openClient(cmd, io, opts.workerConfig, true);
        sessionIds = await client.store.listSessionIds();
      }
      const sent = await mod.enqueueSessions(amqpUrl, queue, sessionIds, { perMessage, queueArguments });
      logger(cmd, io).info(sent, 'enqueued');
      io.stdout.write(`enqueued ${sent.sessions} session(s) in ${sent.messages} message(s) on ${queue}\n`);
    });
}
