/** What every CLI command shares: its I/O, global options, and how it opens the client. */
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { pino } from '../lazy.js';
import { lazyLogger } from './lazy-logger.js';
import { logLineRedactor } from '../api/redact.js';
import { boundLogFields } from '@mce/core';
import { MCEClientConfig, loadMceConfig, type MceConfig } from '../config/index.js';
import type { MCEClient } from '../mce-client.js';
import { parseStoreUrl } from '@mce/store';
import type { KnowledgeGraphStore } from '@mce/store';
import { parseTimeText } from '@mce/store';

export interface CliIO {
  stdout: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };
  stderr: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Ends the process now, not once its work has drained (the worker past its shutdown deadline: a batch may still be
   * running, and waiting for it is what the deadline is there to prevent). Absent in tests and embedders.
   */
  exitNow?: (code: number) => never;
}

import { SkippedInputError, UsageError } from './usage-error.js';

export { SkippedInputError, UsageError };

export interface GlobalOptions {
  debug?: boolean;
  verbose: number;
  envFile?: string;
  config?: string;
  storeUrl?: string;
}

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** The command's logger on stderr; `atLeast: 'info'` for a server, whose access log is always written. */
export function logger(cmd: Command, io: CliIO, atLeast?: 'info'): Logger {
  const g = globals(cmd);
  const level = g.debug || g.verbose >= 2 ? 'debug' : g.verbose === 1 || atLeast === 'info' ? 'info' : 'warn';
  // Every line bounded (long strings and lists cut, saying so): a worker's message may name 100,000 sessions.
  // Secrets (the judge's key, store passwords, API keys, a URL's password) out of every line, whatever field they are in.
  const redact = logLineRedactor(io.env);
  return lazyLogger(level, () => pino().pino({ level, base: undefined, formatters: { log: boundLogFields } }, { write: (line: string) => io.stderr.write(redact(line)) }));
}

/** mce_config.yaml (from --config / --worker-config, MCE_CONFIG or ./mce_config.yaml) with env and --store laid over. */
export function resolveConfig(cmd: Command, io: CliIO, configPath?: string): MceConfig {
  const g = globals(cmd);
  const file = loadMceConfig(configPath ?? g.config, io.env, io.cwd);
  const config = MCEClientConfig.fromEnv(io.env).applyTo(file);
  if (g.storeUrl) {
    try {
      parseStoreUrl(g.storeUrl);
    } catch (error) {
      throw new UsageError(`--store-url: ${(error as Error).message}`);
    }
    config.store.url = g.storeUrl;
  }
  return config;
}

/** A `--from` / `--to` time: ISO 8601 or epoch milliseconds. */
export function timeOption(value: string, option: string): number {
  try {
    return parseTimeText(value);
  } catch {
    throw new UsageError(`${option}: not a time: ${value} (ISO 8601, e.g. 2026-11-30T08:00:00Z, or epoch milliseconds)`);
  }
}

/** The client of a command; `reads`: the command only reads the store, which must then exist (a typo is no new store). */
export async function openClient(cmd: Command, io: CliIO, configPath?: string, reads = false, store?: KnowledgeGraphStore): Promise<MCEClient> {
  const config = resolveConfig(cmd, io, configPath);
  const { MCEClient } = await import('../mce-client.js'); // the stores and the engine: only for commands that open a client
  return MCEClient.open({ config, env: io.env, logger: logger(cmd, io), ...(reads ? { existingStore: true } : {}), ...(store ? { store } : {}) });
}

export function writeJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `--metrics A,B` → names. */
export function parseList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--metrics: give at least one metric name');
  return names;
}
