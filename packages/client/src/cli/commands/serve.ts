/** `mce serve`: the REST API (see docs/rest-api.md and its OpenAPI document). */
import type { Command } from 'commander';
import { UsageError, openClient, type CliIO } from '../context.js';
// Loaded when `mce serve` runs: the HTTP server and its framework are no cost of the other commands.
import type { serveApi } from '../../api/server.js';

export function registerServeCommand(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('serve the REST API')
    .option('--port <n>', 'port', '8000')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--max-body-mb <n>', 'largest request body, in MiB (larger ones get 413)', '32')
    .option('--allowed-hosts <names>', 'comma-separated host names served (default: the loopback names on a loopback --host, else any)')
    .option('--max-computations <n>', 'asynchronous computations (Prefer: respond-async) running at once; the others wait', '2')
    .action(async (opts: { port: string; host: string; maxBodyMb: string; allowedHosts?: string; maxComputations: string }, cmd: Command) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535 (got "${opts.port}")`);
      const maxBodyMb = Number(opts.maxBodyMb);
      // At least one byte once in bytes: 1e-9 MiB would round to a limit that refuses every body.
      if (!(maxBodyMb * 1024 * 1024 >= 1)) throw new UsageError(`--max-body-mb must be a positive number of at least 1 byte (got "${opts.maxBodyMb}")`);
      const maxComputations = Number(opts.maxComputations);
      if (!/^\d+$/.test(opts.maxComputations) || !Number.isSafeInteger(maxComputations) || maxComputations < 1) {
        throw new UsageError(`--max-computations must be a positive integer (got "${opts.maxComputations}")`);
      }
      const client = await openClient(cmd, io);
      let server: Awaited<ReturnType<typeof serveApi>>;
      try {
        // MCE_API_TOKEN: a bearer token every request but /healthz must send (for an API reachable by others).
        const token = io.env.MCE_API_TOKEN?.trim() || undefined;
        const allowedHosts = opts.allowedHosts?.split(',').map((h) => h.trim()).filter(Boolean);
        const { serveApi: serve } = await import('../../api/server.js');
        server = await serve(client, {
          port,
          host: opts.host,
          maxBodyBytes: Math.round(maxBodyMb * 1024 * 1024),
          maxConcurrentComputations: maxComputations,
          ...(token ? { token } : {}),
          ...(allowedHosts?.length ? { allowedHosts } : {}),
        });
      } catch (error) {
        await client.close();
        throw new Error(`cannot listen on ${opts.host}:${port}: ${(error as Error).message}`, { cause: error });
      }
      io.stderr.write(`mce API listening on http://${opts.host}:${server.port} (OpenAPI at /openapi.json)\n`);
      await new Promise<void>((resolve) => {
        // Both handlers go at the first signal: a second one (of either kind) stops the process at once, without waiting.
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      const pending = server.pendingComputations;
      if (pending > 0) io.stderr.write(`mce API stopping: waiting for ${pending} computation${pending === 1 ? '' : 's'} to finish (signal again to stop at once)\n`);
      await server.close();
      await client.close();
    });
}
