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
  /**
   * Host names the API answers to (the `Host` header, and the `Origin` of a browser's request): others get 403. A
   * page on another site, or one whose name was rebound to this address, then cannot read or write the store through
   * the visitor's browser. Default: any (`serveApi` on a loopback address allows only the loopback names).
   */
  allowedHosts?: readonly string[];
  /** When set, every request but `/healthz` must send `Authorization: Bearer <token>` (else 401). */
  token?: string;
}

/** The host names of the loopback interface, as browsers write them. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** `example.com:8000` → `example.com`; `[::1]:8000` → `[::1]`. */
const hostName = (host: string) => host.replace(/:\d+$/, '').toLowerCase();

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
  const allowed = options.allowedHosts?.map((h) => h.toLowerCase());
  app.use('*', async (c, next) => {
    if (allowed) {
      const host = c.req.header('host');
      if (host !== undefined && !allowed.includes(hostName(host))) return c.json({ error: `host ${hostName(host)} is not served here` }, 403);
      const origin = c.req.header('origin');
      let originHost: string | undefined;
      try {
        originHost = origin === undefined || origin === 'null' ? origin : hostName(new URL(origin).host);
      } catch {
        originHost = origin;
      }
      if (originHost !== undefined && !allowed.includes(originHost)) return c.json({ error: `requests from ${origin} are not accepted` }, 403);
    }
    if (options.token !== undefined && c.req.path !== '/healthz' && c.req.header('authorization') !== `Bearer ${options.token}`) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: 'missing or wrong bearer token' }, 401);
    }
    // A body must say it is JSON: a form or text/plain post is what another site's page can send without asking.
    if (c.req.method === 'POST' && c.req.header('content-length') !== '0' && c.req.header('content-type') !== undefined) {
      const type = c.req.header('content-type')!.split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') return c.json({ error: `request body must be application/json (got ${type})` }, 415);
    }
    await next();
  });
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
    // A document nested deeper than the validator's stack: the client's input, not the server's failure.
    if (error instanceof RangeError && /call stack/i.test(error.message)) return c.json({ error: 'request body is nested too deeply' }, 400);
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
