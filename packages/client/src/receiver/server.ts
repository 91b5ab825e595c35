/** `mce receive`: the OTLP receiver alone on Node's HTTP server (`/v1/traces` and `/healthz`). */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AddressInfo } from 'node:net';

export interface ReceiverServer {
  port: number;
  /** Stops listening (requests under way are answered first). */
  close(): Promise<void>;
}

/** Resolves once listening; rejects when the server cannot listen. */
export function serveOtlp(otlpTraces: OpenAPIHono, options: { port: number; host: string }): Promise<ReceiverServer> {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.route('/', otlpTraces);
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path} (the receiver serves POST /v1/traces)` }, 404));
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info: AddressInfo) => {
      server.off('error', reject);
      resolve({ port: info.port, close: () => new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done()))) });
    });
    server.once('error', reject);
  });
}
