/**
 * The `mce` command line. `main(argv, io)` returns the exit code: 0 when the run completed (metric failures are
 * data), 1 for a runtime failure (store unreachable, …), 2 for bad input or usage (the message names the file,
 * line, field or option).
 */
import { Command, CommanderError } from 'commander';
import { config as loadDotenv } from 'dotenv';
import { existsSync } from 'node:fs';
import { MetricOptionsError, MetricSelectionError, SessionNotFoundError, DependencyCycleError, UnknownDependencyError } from '@mce/core';
import { ConfigError, EnvError } from '../config/index.js';
import { IngestError } from '../ingest/index.js';
import { StoreNotFoundError, StoreOpenError } from '../store/index.js';
import { UnstorableIdError } from '../store/storable-ids.js';
import { ResultQueryTextError } from '../store/result-query-text.js';
import { PluginError } from '../plugins/load-providers.js';
import { registerApiKeyCommands } from './commands/api-key.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerComputeCommand } from './commands/compute.js';
import { registerEvalModeCommand } from './commands/eval-mode.js';
import { registerIngestCommands } from './commands/ingest.js';
import { registerKgCommands } from './commands/kg.js';
import { registerWorkerCommands } from './commands/worker.js';
import { registerServeCommand } from './commands/serve.js';
import { UsageError, type CliIO } from './context.js';

const BAD_INPUT = [
  PluginError, ConfigError, EnvError, IngestError, UsageError, MetricSelectionError, MetricOptionsError, SessionNotFoundError, DependencyCycleError,
  UnknownDependencyError, StoreNotFoundError, ResultQueryTextError, UnstorableIdError,
];

export function createProgram(io: CliIO): Command {
  const program = new Command('mce')
    .description('mce — Metrics Computation Engine for multi-agent systems')
    .version('0.1.0')
    .option('--debug', 'debug logging and stack traces')
    .option('--no-debug', 'no debug output (default)')
    .option('-v, --verbose', 'more logging (-v info, -vv debug)', (_v: string, n: number) => n + 1, 0)
    .option('--env-file <path>', 'load environment variables from this file first')
    .option('--config <path>', 'mce_config.yaml to use (default: MCE_CONFIG, else ./mce_config.yaml when present)')
    .option('--store-url <url>', 'store URL (sqlite:PATH, postgres://…, neo4j://…); default MCE_STORE_URL or sqlite:.mce/mce.db')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .hook('preAction', (cmd) => {
      const envFile = cmd.opts().envFile as string | undefined;
      if (envFile) {
        if (!existsSync(envFile)) throw new UsageError(`--env-file ${envFile}: file not found`);
        const loaded = loadDotenv({ path: envFile, processEnv: io.env as Record<string, string>, quiet: true });
        if (loaded.error) throw new UsageError(`--env-file ${envFile}: ${loaded.error.message}`);
      }
    });

  registerCatalogCommands(program, io);
  registerComputeCommand(program, io);
  registerIngestCommands(program, io);
  registerKgCommands(program, io);
  registerEvalModeCommand(program, io);
  registerWorkerCommands(program, io);
  registerServeCommand(program, io);
  registerApiKeyCommands(program, io);
  return program;
}

/** A bad `worker:` section or MCE_AMQP_URL: `@mce/worker` is loaded on demand, so its error class is known by name. */
const isBadWorkerInput = (error: unknown): boolean => error instanceof Error && error.name === 'WorkerConfigError';

export async function main(argv: readonly string[], io: CliIO = defaultIO()): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    const debug = Boolean(program.opts().debug);
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`mce: ${message}\n`);
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    const badStore = error instanceof StoreOpenError && error.badInput;
    return BAD_INPUT.some((E) => error instanceof E) || badStore || isBadWorkerInput(error) ? 2 : 1;
  }
}

/** Set once a command ends the process on purpose (exitNow): the bin's "never settled" notice is not for that. */
let exitedOnPurpose = false;

/** Whether the process is ending through `exitNow` (the worker past its shutdown deadline), not an empty event loop. */
export function endedOnPurpose(): boolean {
  return exitedOnPurpose;
}

export function defaultIO(): CliIO {
  const exitNow = (code: number): never => {
    exitedOnPurpose = true;
    return process.exit(code);
  };
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), exitNow };
}

