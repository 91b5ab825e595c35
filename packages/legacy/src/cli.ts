/**
 * The old `mce-cli`: `list-metrics` (the legacy listing, from the local configuration), `compute CONFIG.json`
 * (POSTs the file to a server's `/compute_metrics`, 300 s at most, and prints a summary or writes `-o`), and
 * `health` (GET /health). Exit codes: 0 done, 1 failed (as the old one), 2 a usage error.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { MetricRegistry } from '@mce/core';
import { nativeProvider } from '@mce/provider-native';
import { MCEClientConfig, installHint, loadMceConfig, loadProviderSet } from '@mce/client';
import { loadDotenvOf } from './dotenv.js';
import { legacyMetricListing, type LegacyMetricInfo, type LegacyMetricListing } from './listing.js';

export interface LegacyCliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The old CLI's default server, and its request time limit. */
export const DEFAULT_SERVER_URL = 'http://localhost:8000';
const COMPUTE_TIMEOUT_MS = 300_000;

class CliFailure extends Error {}

function describe(info: LegacyMetricInfo): string {
  const levels = info.supports_agent_computation ? `${info.aggregation_level}, agent` : info.aggregation_level;
  const text = info.description.trim().replace(/\n/g, ' ');
  return `  • ${info.name} [${levels}] - ${text.length > 80 ? `${text.slice(0, 80)}...` : text}`;
}

/** The listing as the old `mce-cli list-metrics` printed it. */
export function formatListing(listing: LegacyMetricListing): string {
  const lines = [`Available metrics (${listing.total_metrics} total):`];
  const native = Object.values(listing.metrics.native);
  const plugins = Object.values(listing.metrics.plugins);
  if (native.length > 0) lines.push('', `Native metrics (${native.length}):`, ...native.map(describe));
  if (plugins.length > 0) lines.push('', `Plugin metrics (${plugins.length}):`, ...plugins.flatMap((p) => [describe(p), `    - ${p.module} ${p.class}`]));
  return `${lines.join('\n')}\n`;
}

/**
 * The catalog of the local configuration, as `mce metric list` builds it: the built-in metrics, the configured
 * plugins and the provider packages installed; no store is opened.
 */
async function catalog(io: LegacyCliIO): Promise<MetricRegistry> {
  const config = MCEClientConfig.fromEnv(io.env).applyTo(loadMceConfig(undefined, io.env, io.cwd));
  const registry = new MetricRegistry();
  registry.registerProvider(nativeProvider);
  registry.preferProvider(nativeProvider.name);
  registry.unknownHint = installHint;
  for (const { provider } of await loadProviderSet(config, (message) => io.stderr.write(`warning: ${message}\n`))) registry.registerProvider(provider);
  return registry;
}

async function listMetrics(io: LegacyCliIO): Promise<void> {
  io.stdout.write(formatListing(legacyMetricListing(await catalog(io))));
}

async function readConfig(path: string, io: LegacyCliIO): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, path), 'utf8');
  } catch {
    throw new CliFailure(`❌ Configuration file not found: ${path}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliFailure(`❌ Invalid JSON in configuration file ${path}: ${(error as Error).message}`);
  }
}

async function send(url: string, init: RequestInit, serverUrl: string, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new CliFailure(`❌ Request to ${url} timed out after ${timeoutMs / 1000} s`);
    throw new CliFailure(`❌ Cannot connect to server at ${serverUrl}. Make sure the server is running. (${(error as Error).message})`);
  }
}

/** A line per result of the flat form, per group of the grouped one. */
function summary(results: Record<string, unknown>): string[] {
  const lines = ['', 'Results summary:'];
  for (const [list, entries] of Object.entries(results)) {
    if (!Array.isArray(entries)) continue;
    lines.push(`  ${list}: ${entries.length}`);
    for (const e of entries as Array<Record<string, unknown>>) {
      if ('metric_name' in e && 'value' in e) lines.push(`    ${String(e.metric_name)} ${JSON.stringify(e.session_id)}: ${JSON.stringify(e.value)}`);
      else if ('metric_name' in e) lines.push(`    ${String(e.metric_name)} failed: ${String(e.error_message ?? e.skip_reason ?? '')}`);
    }
  }
  return lines;
}

async function compute(configFile: string, opts: { serverUrl: string; output?: string }, io: LegacyCliIO): Promise<void> {
  const config = await readConfig(configFile, io);
  io.stdout.write(`Loading configuration from: ${configFile}\nServer URL: ${opts.serverUrl}\n`);
  const base = opts.serverUrl.replace(/\/+$/, '');
  const response = await send(`${base}/compute_metrics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(config) }, opts.serverUrl, COMPUTE_TIMEOUT_MS);
  const text = await response.text();
  if (response.status !== 200) throw new CliFailure(`❌ Error: Server returned status ${response.status}\nResponse: ${text}`);
  const results = JSON.parse(text) as { metrics?: unknown[]; results?: Record<string, unknown> };
  io.stdout.write(`\n✅ Metrics computation completed successfully!\nComputed ${results.metrics?.length ?? 0} metrics\n`);
  if (opts.output) {
    await writeFile(resolve(io.cwd, opts.output), JSON.stringify(results, null, 2));
    io.stdout.write(`Results saved to: ${opts.output}\n`);
  } else {
    io.stdout.write(`${summary(results.results ?? {}).join('\n')}\n`);
  }
}

async function health(opts: { serverUrl: string }, io: LegacyCliIO): Promise<void> {
  const base = opts.serverUrl.replace(/\/+$/, '');
  const response = await send(`${base}/health`, { method: 'GET' }, opts.serverUrl, 10_000);
  const text = await response.text();
  if (response.status !== 200) throw new CliFailure(`❌ Server at ${opts.serverUrl} is not healthy: status ${response.status}\nResponse: ${text}`);
  io.stdout.write(`✅ Server is healthy\n${text}\n`);
}

export function legacyProgram(io: LegacyCliIO): Command {
  const program = new Command('mce-cli')
    .description('Metrics Computation Engine CLI (the telemetry-hub commands, served by mce)')
    .version('0.1.0')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();
  program.command('list-metrics').description('List all available metrics.').action(() => listMetrics(io));
  program
    .command('compute')
    .description('Compute metrics from a configuration file.')
    .argument('<config_file>', 'a /compute_metrics request as JSON')
    .option('--server-url <url>', 'URL of the MCE server', DEFAULT_SERVER_URL)
    .option('-o, --output <file>', 'Output file for results (JSON format)')
    .action((configFile: string, opts: { serverUrl: string; output?: string }) => compute(configFile, opts, io));
  program
    .command('health')
    .description('Check that the server answers.')
    .option('--server-url <url>', 'URL of the MCE server', DEFAULT_SERVER_URL)
    .action((opts: { serverUrl: string }) => health(opts, io));
  return program;
}

export async function legacyCli(argv: readonly string[], io: LegacyCliIO): Promise<number> {
  try {
    loadDotenvOf(io.cwd, io.env);
    await legacyProgram(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    io.stderr.write(`${error instanceof CliFailure ? error.message : `Error: ${(error as Error).message}`}\n`);
    return 1;
  }
}
