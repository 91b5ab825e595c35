/** Serves the REST API on Node's HTTP server. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { MCEClient } from '../mce-client.js';
import { removeAbandonedSpillDirs } from './abandoned-spill-dirs.js';
import { LOOPBACK_HOSTS, apiApp, type ApiOptions } from './app.js';
import { isLoopbackHost } from './auth.js';
import type { ComputationStatus } from './computations.js';

/** Serving beyond loopback with no API key, not told `insecureNoAuth`: anyone reaching the port could delete the store. */
export class InsecureServeError extends Error {
  override name = 'InsecureServeError';
}

export interface ServeOptions extends ApiOptions {
  port?: number;
  host?: string;
  /** Time a client has to send the request's headers (ms, default 10 s): a slow sender holds a socket no longer. */
  headersTimeoutMs?: number;
  /** Time a client has to send the whole request, body included (ms, default 60 s). */
  requestTimeoutMs?: number;
}

export interface ApiServer {
  port: number;
  /** Asynchronous computations queued or running. */
  readonly pendingComputations: number;
  /** The asynchronous computations queued or running, newest submitted first: what stopping at once leaves undone. */
  unfinishedComputations(): ComputationStatus[];
  /**
   * Stops listening and taking asynchronous computations (503), and resolves once the queued and running ones have
   * finished and stored their results. Their status table is lost with the server; their stored results are not.
   */
  close(): Promise<void>;
}

const UNFINISHED: ReadonlySet<ComputationStatus['status']> = new Set(['queued', 'running']);

/**
 * Resolves once listening; rejects when the server cannot listen (the port is taken, …). Removes first the temporary
 * directories that servers killed before they could close left behind (abandoned-spill-dirs.ts).
 */
export function serveApi(client: MCEClient, options: ServeOptions = {}): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  // On a loopback address only the loopback names are served: a site whose name was rebound to 127.0.0.1 is not.
  const loopback = isLoopbackHost(host);
  const keyed = (options.keys?.length ?? 0) > 0 || options.token !== undefined;
  if (!loopback && !keyed && !options.insecureNoAuth) {
    return Promise.reject(new InsecureServeError(
      `no API key is configured: refusing to serve on ${host}, beyond loopback (configure api.keys or MCE_API_KEYS, or accept anyone reaching the port with --insecure-no-auth)`,
    ));
  }
  return removeAbandonedSpillDirs().then((removed) => {
    if (removed.length > 0) options.logger?.info({ removed }, 'removed the temporary directories of servers no longer running');
    return listen(client, { ...options, ...(options.allowedHosts === undefined && loopback ? { allowedHosts: LOOPBACK_HOSTS } : {}) });
  });
}

function listen(client: MCEClient, options: ServeOptions): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  const { app, computations, close: closeApp } = apiApp(client, options);
  return new Promise((resolve, reject) => {
    // Node checks the two timeouts every connectionsCheckingInterval (30 s by default): once a second keeps them honest.
    const serverOptions = { headersTimeout: options.headersTimeoutMs ?? 10_000, requestTimeout: options.requestTimeoutMs ?? 60_000, connectionsCheckingInterval: 1000 };
    const server = serve({ fetch: app.fetch, port: options.port ?? 8000, hostname: host, serverOptions }, (info: AddressInfo) => {
      server.off('error', reject);
      resolve({
        port: info.port,
        get pendingComputations() {
          return computations.pending;
        },
        unfinishedComputations: () => computations.list(UNFINISHED),
        close: async () => {
          const drained = computations.close();
          await new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done())));
          await drained;
          await closeApp();
        },
      });
    });
    server.once('error', reject);
  });
}
