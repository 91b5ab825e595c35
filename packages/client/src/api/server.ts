/** Serves the REST API on Node's HTTP server. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { MCEClient } from '../mce-client.js';
import { LOOPBACK_HOSTS, apiApp, type ApiOptions } from './app.js';

export interface ApiServer {
  port: number;
  /** Asynchronous computations queued or running. */
  readonly pendingComputations: number;
  /**
   * Stops listening and taking asynchronous computations (503), and resolves once the queued and running ones have
   * finished and stored their results. Their status table is lost with the server; their stored results are not.
   */
  close(): Promise<void>;
}

/** Resolves once listening; rejects when the server cannot listen (the port is taken, …). */
export function serveApi(client: MCEClient, options: { port?: number; host?: string } & ApiOptions = {}): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  // On a loopback address only the loopback names are served: a site whose name was rebound to 127.0.0.1 is not.
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  const { app, computations } = apiApp(client, { ...options, ...(options.allowedHosts === undefined && loopback ? { allowedHosts: LOOPBACK_HOSTS } : {}) });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? 8000, hostname: host }, (info: AddressInfo) => {
      server.off('error', reject);
      resolve({
        port: info.port,
        get pendingComputations() {
          return computations.pending;
        },
        close: async () => {
          const drained = computations.close();
          await new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done())));
          await drained;
        },
      });
    });
    server.once('error', reject);
  });
}
