/**
 * `mce-worker`: the standalone worker. Reads `mce_config.yaml` (--config, else MCE_CONFIG, else ./mce_config.yaml)
 * with environment overrides, opens the configured store and engine, and consumes the queue until SIGTERM/SIGINT.
 * Exit codes: 0 clean shutdown, 1 failure or missed shutdown deadline, 2 bad usage or configuration.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EngineOptionError, MetricSelectionError } from '@mce/core';
import { ConfigError, EnvError, MCEClient, MCEClientConfig, MCEWorkerService, PluginError, loadMceConfig, logLineRedactor, workerEvents, type MceConfig, type StoreNotFoundError } from '@mce/client';
import { WorkerConfigError, workerConfigFrom } from './config.js';
import { createLogger } from './logger.js';
import { runWorker } from './run-worker.js';
import { openStored, processorWhenStored } from './store-when-there.js';

const USAGE = `usage: mce-worker [--config FILE | --worker-config FILE] [--env-file FILE] [--log-level LEVEL]

Consumes the worker queue (mce_config.yaml "worker:" section, MCE_WORKER_* and MCE_AMQP_URL / RABBITMQ_URL),
computes each session with the configured metrics and writes the results to the configured store.
`;

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: { config?: string; 'worker-config'?: string; 'env-file'?: string; 'log-level'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string', short: 'c' },
        // The seed's spelling (as `mce compute --worker-config`): the same file.
        'worker-config': { type: 'string' },
        'env-file': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`mce-worker: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.config !== undefined && values['worker-config'] !== undefined && values.config !== values['worker-config']) {
    process.stderr.write(`mce-worker: --config and --worker-config name different files; give one\n${USAGE}`);
    return 2;
  }
  const configFile = values.config ?? values['worker-config'];
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const envFile = values['env-file'];
  if (envFile) {
    if (!existsSync(envFile)) {
      process.stderr.write(`mce-worker: --env-file ${envFile}: file not found\n`);
      return 2;
    }
    process.loadEnvFile(envFile);
  }
  const level = values['log-level'] ?? env.MCE_LOG_LEVEL ?? 'info';
  let log: ReturnType<typeof createLogger>;
  try {
    // The secrets of the environment (the judge's key, store passwords, a URL's password) never in a line.
    log = createLogger({ level, redact: logLineRedactor(env) });
  } catch (error) {
    // pino refuses an unknown level: bad input, named, not a crash.
    const source = values['log-level'] !== undefined ? '--log-level' : 'MCE_LOG_LEVEL';
    process.stderr.write(`mce-worker: ${source} ${level}: ${(error as Error).message} (use fatal, error, warn, info, debug, trace or silent)\n`);
    return 2;
  }

  let config: MceConfig;
  let workerConfig: ReturnType<typeof workerConfigFrom>;
  let opened: MCEClient | StoreNotFoundError;
  // The store must be there: a worker over a new, empty one (a misspelt schema=) would dead-letter every message.
  const open = () => MCEClient.open({ config, env, logger: log, existingStore: true });
  try {
    config = MCEClientConfig.fromEnv(env).applyTo(loadMceConfig(configFile, env));
    workerConfig = workerConfigFrom(config.worker, env);
    opened = await openStored(open, (store) => MCEClient.open({ config, env, logger: log, store, cache: false }));
  } catch (error) {
    // Bad configuration, as `mce` reports it: the file, a variable, a plugin, the engine options, the metric selection.
    const badInput = [ConfigError, WorkerConfigError, EnvError, PluginError, EngineOptionError, MetricSelectionError];
    if (badInput.some((kind) => error instanceof kind)) {
      process.stderr.write(`mce-worker: ${(error as Error).message}\n`);
      return 2;
    }
    log.fatal({ err: error }, 'could not start');
    return 1;
  }

  let client: MCEClient | undefined;
  try {
    const events = await workerEvents(config, env, (error) => log.warn({ err: error }, 'results stored, but their evaluation events could not be sent'));
    const processor = processorWhenStored(opened, open, (c) => new MCEWorkerService((client = c), events?.options));
    const result = await runWorker({ processor, config: workerConfig, logger: log });
    await events?.shutdown();
    // After a missed deadline a batch may still be running: leave without waiting for it.
    if (result.exitCode === 0) await client?.close();
    return result.exitCode;
  } catch (error) {
    log.fatal({ err: error }, 'worker failed');
    return 1;
  }
}
