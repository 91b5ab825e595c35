/**
 * The legacy routes as a Hono app: `POST /compute_metrics`, `GET /metrics`, `GET /status` and `GET /health` (which
 * the old CLI calls and the old server lacked). `mce serve` mounts it beside the mce API when this package is
 * installed; `legacyRoutes` builds it over a client on its own.
 */
import { Hono } from 'hono';
import type { MCEClient } from '@mce/client';
import { ApiLayerError } from './api-layer.js';
import { computeLegacy, DEFAULT_SETTINGS, type LegacySettings } from './compute.js';
import { legacyMetricListing } from './listing.js';
import { parseLegacyRequest } from './request.js';
import { storeSink, storeSource, type ResultSink, type SessionSource } from './sources.js';

export interface LegacyAppOptions {
  /** Where sessions are read; default the client's store. */
  source?: SessionSource;
  /** Where `write_to_db` writes; default the client's store. */
  sink?: ResultSink;
  settings?: Partial<LegacySettings>;
  /** The clock of the default 7-day batch window (tests fix it). */
  now?: () => Date;
}

const SERVICE = 'metrics_computation_engine';

export function legacyRoutes(client: MCEClient, options: LegacyAppOptions = {}): Hono {
  const deps = {
    client,
    source: options.source ?? storeSource(client),
    sink: options.sink ?? storeSink(client),
    settings: { ...DEFAULT_SETTINGS, ...options.settings },
  };
  const now = options.now ?? (() => new Date());
  const app = new Hono();
  app.get('/status', (c) => c.json({ status: 'ok', message: 'Metric Computation Engine is running', timestamp: now().toISOString(), service: SERVICE }));
  app.get('/health', (c) => c.json({ status: 'healthy', service: SERVICE, timestamp: now().toISOString() }));
  app.get('/metrics', (c) => c.json(legacyMetricListing(client.engine.registry)));
  app.post('/compute_metrics', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      return c.json({ detail: [{ loc: ['body'], msg: `the body is not JSON: ${(error as Error).message}`, type: 'json_invalid' }] }, 422);
    }
    const parsed = parseLegacyRequest(body, now());
    if (!parsed.ok) return c.json(parsed.body, parsed.status);
    try {
      return c.json(await computeLegacy(deps, parsed.request));
    } catch (error) {
      // The old API answered 500 with `detail`; an api-layer that failed is a bad gateway, and says which URL.
      return c.json({ detail: (error as Error).message }, error instanceof ApiLayerError ? 502 : 500);
    }
  });
  return app;
}
