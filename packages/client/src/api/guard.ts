/**
 * What every request goes through before its route: the access log around it, then who is asking (Host and Origin,
 * the API key and its scope), then the rate limit. A stranger gets 403 / 401 before a word about the body they sent.
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { getCookie } from 'hono/cookie';
import { ApiKeys, bearerKey, routeAccess, type ApiKey } from './auth.js';
import { KEY_COOKIE } from '../web/sign-in.js';
import { RateLimiter } from './rate-limit.js';
import { cut, redactSecrets } from './redact.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The name of the key the request was made with (undefined without keys, or on an open route). */
    apiKeyName: string | undefined;
    /** This request's id, in its log lines and its `X-Request-Id` header. */
    requestId: string;
  }
}

/** The part of a pino logger the API writes to. */
export interface ApiLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface GuardOptions {
  keys: readonly ApiKey[];
  allowedHosts?: readonly string[];
  logger?: ApiLogger;
  /** No key and served beyond loopback on purpose: every access log line says so. */
  insecureNoAuth?: boolean;
  /** Strings never written to a log or an answer (OPENAI_API_KEY, store passwords, …). */
  secrets: readonly string[];
  /** Requests per second per key (per client address without keys); undefined: no limit. */
  requestsPerSecond?: number;
  /** Origins (`https://app.example.com`) whose pages may call the API from a browser; none: CORS off. */
  corsOrigins?: readonly string[];
}

/** `example.com:8000` → `example.com`; `[::1]:8000` → `[::1]`. */
const hostName = (host: string) => host.replace(/:\d+$/, '').toLowerCase();

/** The route pattern that answered (`/sessions/:id`), not the path: ids stay out of the route field. */
function routeOf(c: Context): string | undefined {
  return c.req.matchedRoutes.filter((r) => r.method !== 'ALL').at(-1)?.path;
}

/** One line per request, written once it is answered: never the key, only its name. */
export function accessLog(options: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    c.set('requestId', requestId);
    await next();
    c.header('X-Request-Id', requestId);
    const status = c.res.status;
    const fields = {
      requestId,
      method: c.req.method,
      path: cut(redactSecrets(c.req.path, options.secrets), 256),
      route: routeOf(c) ?? null,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      key: c.get('apiKeyName') ?? null,
      ...(options.insecureNoAuth ? { insecure: 'no API key required (--insecure-no-auth)' } : {}),
    };
    if (status >= 500) options.logger?.error(fields, 'request');
    else if (options.insecureNoAuth) options.logger?.warn(fields, 'request');
    else options.logger?.info(fields, 'request');
  };
}

/**
 * Host and Origin against the allow-list (a page of another site, or a name rebound to this address, gets 403); an
 * origin of the CORS allow-list is a page allowed to call.
 */
export function hostCheck(allowedHosts: readonly string[] | undefined, corsOrigins: readonly string[] = []): MiddlewareHandler {
  const allowed = allowedHosts?.map((h) => h.toLowerCase());
  return async (c, next) => {
    if (allowed && !corsOrigins.includes(c.req.header('origin') ?? '')) {
      const host = c.req.header('host');
      if (host !== undefined && !allowed.includes(hostName(host))) return c.json({ error: `host ${cut(hostName(host), 200)} is not served here` }, 403);
      const origin = c.req.header('origin');
      let originHost: string | undefined;
      try {
        originHost = origin === undefined || origin === 'null' ? origin : hostName(new URL(origin).host);
      } catch {
        originHost = origin;
      }
      if (originHost !== undefined && !allowed.includes(originHost)) return c.json({ error: `requests from ${cut(origin ?? '', 200)} are not accepted` }, 403);
    }
    await next();
  };
}

/**
 * The key and its scope: 401 (with `WWW-Authenticate`) for a missing or unknown key, 403 for a key without the
 * route's scope. Without keys every request passes (the server then listens on loopback only, or was told
 * `--insecure-no-auth`).
 */
/** A GET of the web view's pages (`/`, `/view/…`) by a browser (one that takes HTML). */
function isWebPage(c: Context): boolean {
  const path = c.req.path;
  const page = path === '/' || path.startsWith('/view/');
  return page && c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html');
}

export function keyCheck(keys: readonly ApiKey[]): MiddlewareHandler {
  const table = new ApiKeys(keys);
  return async (c, next) => {
    const access = routeAccess(c.req.method, c.req.path);
    if (table.size > 0 && access !== 'open') {
      // A signed-in browser's cookie counts for reading only (web/sign-in.ts): never for writing or deleting.
      const presented = bearerKey(c.req.header('authorization')) ?? (access === 'read' ? getCookie(c, KEY_COOKIE) : undefined);
      const key = presented === undefined ? undefined : table.find(presented);
      // A browser asking for a page of the web view is sent to sign in, rather than given a JSON error.
      if (!key && isWebPage(c)) return c.redirect('/view/sign-in', 303);
      if (!key) {
        c.header('WWW-Authenticate', 'Bearer realm="mce"');
        return c.json({ error: presented === undefined ? 'missing API key (Authorization: Bearer <key>)' : 'unknown API key' }, 401);
      }
      c.set('apiKeyName', key.name);
      if (!key.scopes.includes(access)) return c.json({ error: `API key ${key.name} lacks the ${access} scope this route needs` }, 403);
    }
    await next();
  };
}

/**
 * CORS for the allow-listed origins only (none: no Access-Control-* header at all, so no other site's page can read
 * an answer). Preflights are answered here, before the key check: a browser sends no credentials with them.
 */
export function corsFor(origins: readonly string[] | undefined): MiddlewareHandler {
  if (!origins || origins.length === 0) return async (_c, next) => next();
  return cors({
    origin: [...origins],
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'Prefer'],
    exposeHeaders: ['Location', 'Link', 'Retry-After', 'Preference-Applied', 'X-Request-Id'],
    maxAge: 600,
  });
}

/** The client's address on Node's server (none for `app.request` in a program); a header saying it could be forged. */
function remoteAddress(c: Context): string | undefined {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
}

/** Requests per second per key (per client address without keys): 429 with `Retry-After` past it. */
export function rateLimit(requestsPerSecond: number | undefined): MiddlewareHandler {
  const limiter = requestsPerSecond === undefined ? undefined : new RateLimiter(requestsPerSecond);
  return async (c, next) => {
    if (limiter && routeAccess(c.req.method, c.req.path) !== 'open') {
      const who = c.get('apiKeyName') ?? remoteAddress(c) ?? 'anonymous';
      const wait = limiter.take(who);
      if (wait > 0) {
        c.header('Retry-After', String(Math.ceil(wait / 1000)));
        return c.json({ error: `rate limit of ${requestsPerSecond} requests per second exceeded; retry in ${Math.ceil(wait / 1000)} s` }, 429);
      }
    }
    await next();
  };
}
