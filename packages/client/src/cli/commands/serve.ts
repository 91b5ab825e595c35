/** `mce serve`: the REST API (see docs/rest-api.md and its OpenAPI document), the web view and the OTLP receiver (docs/receiver.md). */
import type { Command } from 'commander';
import type { Hono } from 'hono';
import type { MCEClient } from '../../mce-client.js';
import { UsageError, logger, openClient, resolveConfig, type CliIO } from '../context.js';
import { InsecureServeError, serveApi } from '../../api/server.js';
import { apiKeysFromEnv } from '../../api/auth.js';
import { environmentSecrets } from '../../api/redact.js';
import type { ReceiverPipeline } from '../../receiver/pipeline.js';
import { closeReceiver, startReceiver, untilSignal, type ReceiverFlags } from './receive.js';
import { unfinishedReport } from './unfinished-computations.js';

interface ServeOptions extends ReceiverFlags {
  port: string;
  host: string;
  maxBodyMb: string;
  allowedHosts?: string;
  maxComputations: string;
  maxQueued: string;
  maxComputationsPerKey?: string;
  rateLimit?: string;
  insecureNoAuth?: boolean;
  corsOrigins?: string;
}

function positiveInteger(text: string, option: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${option} must be a positive integer (got "${text}")`);
  return n;
}

/** The numeric options, checked: each error names its option. */
function limitsOf(opts: ServeOptions) {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535 (got "${opts.port}")`);
  const maxBodyMb = Number(opts.maxBodyMb);
  // At least one byte once in bytes: 1e-9 MiB would round to a limit that refuses every body.
  if (!(maxBodyMb * 1024 * 1024 >= 1)) throw new UsageError(`--max-body-mb must be a positive number of at least 1 byte (got "${opts.maxBodyMb}")`);
  const rate = opts.rateLimit === undefined ? undefined : Number(opts.rateLimit);
  if (rate !== undefined && !(rate > 0 && Number.isFinite(rate))) throw new UsageError(`--rate-limit must be a positive number of requests per second (got "${opts.rateLimit}")`);
  return {
    port,
    maxBodyBytes: Math.round(maxBodyMb * 1024 * 1024),
    maxConcurrentComputations: positiveInteger(opts.maxComputations, '--max-computations'),
    maxQueuedComputations: positiveInteger(opts.maxQueued, '--max-queued'),
    ...(opts.maxComputationsPerKey !== undefined ? { maxComputationsPerKey: positiveInteger(opts.maxComputationsPerKey, '--max-computations-per-key') } : {}),
    ...(rate !== undefined ? { requestsPerSecond: rate } : {}),
  };
}

interface LegacyModule {
  legacyMount(client: MCEClient, env: NodeJS.ProcessEnv): { app: Hono; notices: string[] };
}

/**
 * `@mce/legacy` (the telemetry-hub routes) when it is installed; it depends on this package, so it is loaded on
 * demand by a name the bundler and the import check leave alone. Its `./mount` entry imports no client code (only
 * types), so serving it costs no second copy of this package. Not installed: undefined, and mce serves its own API.
 */
async function loadLegacy(): Promise<LegacyModule | undefined> {
  const name = '@mce/legacy/mount';
  try {
    return (await import(name)) as LegacyModule;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('@mce/legacy')) return undefined;
    throw error;
  }
}

export function registerServeCommand(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('serve the REST API and the read-only web view (/)')
    .option('--port <n>', 'port', '8000')
    .option('--host <host>', 'interface to listen on (beyond loopback only with an API key, or --insecure-no-auth)', '127.0.0.1')
    .option('--max-body-mb <n>', 'largest request body, in MiB (larger ones get 413)', '32')
    .option('--allowed-hosts <names>', 'comma-separated host names served (default: the loopback names on a loopback --host, else any)')
    .option('--max-computations <n>', 'asynchronous computations (Prefer: respond-async) running at once; the others wait', '2')
    .option('--max-queued <n>', 'asynchronous computations waiting at most; more get 429', '100')
    .option('--max-computations-per-key <n>', 'asynchronous computations one API key may have queued or running; more get 429')
    .option('--rate-limit <n>', 'requests per second per API key (per client address without keys); more get 429')
    .option('--cors-origins <origins>', 'comma-separated origins (https://app.example.com) whose pages may call the API from a browser; default none: CORS off')
    .option('--insecure-no-auth', 'serve beyond loopback with no API key: anyone reaching the port may read, write and delete')
    .option('--export-otlp', 'emit the receiver\'s results as gen_ai.evaluation.result log records over OTLP (receiver.export_otlp)')
    .option('--session-idle-ms <ms>', 'the receiver completes a session once idle this long (receiver.session_idle_ms)')
    .action(async (opts: ServeOptions, cmd: Command) => {
      const limits = limitsOf(opts);
      const corsOrigins = opts.corsOrigins?.split(',').map((o) => o.trim()).filter(Boolean);
      for (const origin of corsOrigins ?? []) if (!isOrigin(origin)) throw new UsageError(`--cors-origins: ${origin} is no origin (scheme://host[:port], no path)`);
      // api.keys of the config, then MCE_API_KEYS and MCE_API_TOKEN (a key named `token` with every scope).
      const config = resolveConfig(cmd, io);
      const keys = [...config.api.keys, ...apiKeysFromEnv(io.env)];
      const log = logger(cmd, io, 'info');
      const client = await openClient(cmd, io);
      let server: Awaited<ReturnType<typeof serveApi>>;
      let pipeline: ReceiverPipeline | undefined;
      let legacy: ReturnType<LegacyModule['legacyMount']> | undefined;
      try {
        pipeline = await startReceiver(client, opts, cmd, io);
        legacy = (await loadLegacy())?.legacyMount(client, io.env);
        const allowedHosts = opts.allowedHosts?.split(',').map((h) => h.trim()).filter(Boolean);
        server = await serveApi(client, {
          ...limits,
          host: opts.host,
          keys,
          logger: log,
          secrets: environmentSecrets(io.env),
          // Computations in a thread with a client of its own over the same configuration: off the event loop.
          computeThread: { config, env: io.env },
          ...(opts.insecureNoAuth ? { insecureNoAuth: true } : {}),
          ...(allowedHosts?.length ? { allowedHosts } : {}),
          otlpTraces: pipeline.app,
          ...(legacy ? { extraRoutes: [legacy.app] } : {}),
          ...(corsOrigins?.length ? { corsOrigins } : {}),
        });
      } catch (error) {
        await pipeline?.close();
        await client.close();
        if (error instanceof InsecureServeError) throw new UsageError(error.message);
        // A malformed telemetry-hub variable (API_BASE_URL, SESSIONS_TRACES_MAX, …): its message names it.
        if ((error as Error).name === 'LegacyEnvError') throw new UsageError((error as Error).message);
        throw new Error(`cannot listen on ${opts.host}:${limits.port}: ${(error as Error).message}`, { cause: error });
      }
      io.stderr.write(`mce API listening on http://${opts.host}:${server.port} (OpenAPI at /openapi.json, web view at /, OTLP at /v1/traces)\n`);
      for (const notice of legacy?.notices ?? []) io.stderr.write(`mce: ${notice}\n`);
      if (keys.length === 0 && opts.insecureNoAuth) {
        io.stderr.write(`mce: WARNING: no API key is configured and --insecure-no-auth is given: anyone reaching ${opts.host}:${server.port} may read, write and delete\n`);
      }
      await untilSignal();
      // The receiver first: it refuses new spans (503) while it stores those buffered and evaluates its open sessions.
      await closeReceiver(pipeline, io);
      const pending = server.pendingComputations;
      if (pending > 0) {
        io.stderr.write(`mce API stopping: waiting for ${pending} computation${pending === 1 ? '' : 's'} to finish (signal again to stop at once)\n`);
        // Stopped at once: the computations left undone are named, not lost without a word.
        void untilSignal().then(() => {
          io.stderr.write(unfinishedReport(server.unfinishedComputations()));
          if (io.exitNow) io.exitNow(1);
          process.exit(1);
        });
      }
      await server.close();
      await client.close();
    });
}

function isOrigin(text: string): boolean {
  try {
    return new URL(text).origin === text;
  } catch {
    return false;
  }
}
