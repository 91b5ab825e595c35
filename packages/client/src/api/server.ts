/** Serves the REST API on Node's HTTP server. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { MCEClient } from '../mce-client.js';
import { createApiApp } from './app.js';

export interface ApiServer {
  port: number;
  close(): Promise<void>;
}

export function serveApi(client: MCEClient, options: { port?: number; host?: string } = {}): Promise<ApiServer> {
  const app = createApiApp(client);
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? 8000, hostname: options.host ?? '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        port: info.port,
        close: () => new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done()))),
      });
    });
  });
}
