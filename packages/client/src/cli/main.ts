/**
 * The `mce` command line. `main(argv, io)` returns the exit code: 0 when the run completed (metric failures are
 * data), 1 for a runtime failure (store unreachable, …), 2 for bad input or usage (the message names the file,
 * line, field or option).
 *
 * A command's code (and with it the store drivers, the judge's HTTP client, the REST server) is loaded only when that
 * command runs: `mce --version` loads none of it, `mce metric list` no store (see bench/startup).
 */
import { Command, CommanderError } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import type { CliIO } from './context.js';
import { SkippedInputError, UsageError } from './usage-error.js';
import { exitCodeOf } from './exit-code.js';

type Register = (program: Command, io: CliIO) => void;

/** Each module of commands, in the order `mce --help` lists them, with the top-level commands it registers. */
const COMMAND_MODULES: { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['metric', 'provider'], load: async () => (await import('./commands/catalog.js')).registerCatalogCommands },
  { names: ['compute'], load: async () => (await import('./commands/compute.js')).registerComputeCommand },
  { names: ['ingest', 'sessions'], load: async () => (await import('./commands/ingest.js')).registerIngestCommands },
  { names: ['kg'], load: async () => (await import('./commands/kg.js')).registerKgCommands },
  { names: ['set-eval-mode'], load: async () => (await import('./commands/eval-mode.js')).registerEvalModeCommand },
  { names: ['worker', 'enqueue'], load: async () => (await import('./commands/worker.js')).registerWorkerCommands },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServeCommand },
  { names: ['receive'], load: async () => (await import('./commands/receive.js')).registerReceiveCommand },
  { names: ['export'], load: async () => (await import('./commands/export.js')).registerExportCommand },
  { names: ['report'], load: async () => (await import('./commands/report.js')).registerReportCommand },
  { names: ['check'], load: async () => (await import('./commands/check.js')).registerCheckCommand },
  { names: ['api-key'], load: async () => (await import('./commands/api-key.js')).registerApiKeyCommands },
];

/** The global options that take a value: what follows them is not the command's name. */
const VALUE_OPTIONS = new Set(['--env-file', '--config', '--store-url']);

/** The command argv names: the first word that is neither a global option nor its value (undefined for `--version`). */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return argv[i + 1];
    if (!arg.startsWith('-')) return arg;
    if (VALUE_OPTIONS.has(arg)) i++;
  }
  return undefined;
}

/** The modules argv needs: its command's; all of them for help, an unknown command (for suggestions) or none given with options to show. */
function modulesFor(argv: readonly string[]): typeof COMMAND_MODULES {
  const name = commandName(argv);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (name === undefined) return wantsHelp || argv.length === 0 ? COMMAND_MODULES : [];
  const found = COMMAND_MODULES.filter((m) => m.names.includes(name));
  return found.length > 0 ? found : COMMAND_MODULES;
}

/** The installed @mce/client's version (`changeset version` sets it): the same path from dist/cli and dist/bundle. */
function clientVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function baseProgram(io: CliIO): Command {
  return new Command('mce')
    .description('mce — Metrics Computation Engine for multi-agent systems')
    .version(clientVersion())
    .option('--debug', 'debug logging and stack traces')
    .option('--no-debug', 'no debug output (default)')
    .option('-v, --verbose', 'more logging (-v info, -vv debug)', (_v: string, n: number) => n + 1, 0)
    .option('--env-file <path>', 'load environment variables from this file first')
    .option('--config <path>', 'mce_config.yaml to use (default: MCE_CONFIG, else ./mce_config.yaml when present)')
    .option('--store-url <url>', 'store URL (sqlite:PATH, postgres://…, neo4j://…); default MCE_STORE_URL or sqlite:.mce/mce.db')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .hook('preAction', async (cmd) => {
      const envFile = cmd.opts().envFile as string | undefined;
      if (envFile) {
        if (!existsSync(envFile)) throw new UsageError(`--env-file ${envFile}: file not found`);
        const { config: loadDotenv } = await import('dotenv');
        const loaded = loadDotenv({ path: envFile, processEnv: io.env as Record<string, string>, quiet: true });
        if (loaded.error) throw new UsageError(`--env-file ${envFile}: ${loaded.error.message}`);
      }
    });
}

/** The program with the commands `argv` needs (every command when `argv` is not given). */
export async function createProgram(io: CliIO, argv?: readonly string[]): Promise<Command> {
  const program = baseProgram(io);
  for (const module of argv ? modulesFor(argv) : COMMAND_MODULES) (await module.load())(program, io);
  return program;
}

export async function main(argv: readonly string[], io: CliIO = defaultIO()): Promise<number> {
  const program = await createProgram(io, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof SkippedInputError) {
      io.stderr.write(`mce: ${error.message}\n`);
      return 3;
    }
    const debug = Boolean(program.opts().debug);
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`mce: ${message}\n`);
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return exitCodeOf(error);
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
