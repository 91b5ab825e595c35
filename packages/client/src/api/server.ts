/** Serves the REST API on Node's HTTP server. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { MCEClient } from '../mce-client.js';
import { createApiApp, type ApiOptions } from './app.js';

export interface ApiServer {
  port: number;
  close(): Promise<void>;
}

/** Resolves once listening; rejects when the server cannot listen (the port is taken, …). */
export function serveApi(client: MCEClient, options: { port?: number; host?: string } & ApiOptions = {}): Promise<ApiServer> {
  const app = createApiApp(client, options);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? 8000, hostname: options.host ?? '127.0.0.1' }, (info: AddressInfo) => {
      server.off('error', reject);
      resolve({
        port: info.port,
        close: () => new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done()))),
      });
    });
    server.once('error', reject);
  });
}
