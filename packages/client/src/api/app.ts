/** The REST API as a Hono app over an MCEClient (routes documented in openapi.ts). */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { SessionNotFoundError, MetricSelectionError } from '@mce/core';
import { parseSessionDocument } from '../ingest/formats/session-json.js';
import type { MCEClient } from '../mce-client.js';
import { toEpochMs } from '../store/rows.js';
import { OPENAPI } from './openapi.js';

function list(value: string | undefined): string[] | undefined {
  const names = value?.split(',').map((s) => s.trim()).filter(Boolean);
  return names?.length ? names : undefined;
}

function int(c: Context, name: string): number | undefined {
  const v = c.req.query(name);
  if (v === undefined) return undefined;
  const n = v.trim() === '' ? Number.NaN : Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new BadRequest(`query parameter ${name} must be a non-negative integer`);
  return n;
}

/** A time query parameter (ISO or epoch ms), checked here so a bad one is the client's error, not the server's. */
function time(c: Context, name: string): number | undefined {
  const v = c.req.query(name);
  if (!v) return undefined;
  try {
    return toEpochMs(v);
  } catch {
    throw new BadRequest(`query parameter ${name} must be an ISO time or epoch milliseconds (got "${v}")`);
  }
}

class BadRequest extends Error {}

/** The methods of the app's routes whose pattern matches `path` (`:param` is one path segment). */
function methodsOf(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue; // middleware
    const pattern = new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  return [...methods];
}

export interface ApiOptions {
  /** Largest request body accepted (bytes); a larger one is refused with 413 before it is read. Default 32 MiB. */
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export function createApiApp(client: MCEClient, options: ApiOptions = {}): Hono {
  const app = new Hono();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json({ error: `request body larger than ${maxBodyBytes} bytes` }, 413),
    }),
  );
  app.notFound((c) => {
    // A known path asked with another method is 405 with the methods it has (RFC 9110), not an unknown route.
    const allowed = methodsOf(app, c.req.path);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return c.json({ error: `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allowed.join(', ')})` }, 405);
    }
    return c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404);
  });
  app.onError((error, c) => {
    if (error instanceof SessionNotFoundError) return c.json({ error: error.message }, 404);
    if (error instanceof BadRequest || error instanceof MetricSelectionError) return c.json({ error: error.message }, 400);
    return c.json({ error: error.message }, 500);
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/openapi.json', (c) => c.json(OPENAPI));
  app.get('/metrics/catalog', (c) => c.json(client.engine.registry.list().map((r) => r.metric.metadata)));

  app.get('/sessions', async (c) => {
    const q = (n: string) => c.req.query(n);
    const limit = int(c, 'limit');
    const offset = int(c, 'offset');
    const from = time(c, 'from');
    const to = time(c, 'to');
    return c.json(
      await client.store.listSessions({
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(q('service') ? { serviceName: q('service') } : {}),
        ...(q('app') ? { appName: q('app') } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(offset !== undefined ? { offset } : {}),
      }),
    );
  });

  app.post('/sessions', async (c) => {
    const body = await c.req.json().catch(() => {
      throw new BadRequest('request body is not JSON');
    });
    const doc = parseSessionDocument(body);
    if ('issues' in doc) throw new BadRequest(`not an mce session document: ${doc.issues.join('; ')}`);
    const sessions = doc.sessions;
    await client.store.writeSessions(sessions);
    return c.json({ sessionIds: sessions.map((s) => s.id) }, 201);
  });

  app.get('/sessions/:id', async (c) => {
    const session = await client.store.getSession(c.req.param('id'));
    if (!session) throw new SessionNotFoundError([c.req.param('id')]);
    return c.json(session);
  });

  app.post('/sessions/:id/compute', async (c) => {
    const metrics = list(c.req.query('metrics'));
    const [computation] = await client.computeAndStore(c.req.param('id'), metrics ? { metrics } : {});
    return c.json(computation);
  });

  app.get('/sessions/:id/metrics', async (c) => {
    const metricIds = list(c.req.query('metrics'));
    const recursive = c.req.query('recursive');
    if (recursive !== undefined && recursive !== 'true' && recursive !== 'false') {
      throw new BadRequest(`query parameter recursive must be true or false (got "${recursive}")`);
    }
    const id = c.req.param('id');
    const results = await client.getMetrics(id, { // an unknown session is a SessionNotFoundError (404)
      recursive: recursive === 'true',
      ...(metricIds ? { metricIds } : {}),
    });
    return c.json({ sessionId: c.req.param('id'), results, failed: [], skipped: [] });
  });
  return app;
}
