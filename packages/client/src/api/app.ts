/** The REST API as a Hono app over an MCEClient (routes documented in openapi.ts). */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { SessionNotFoundError, ONTOLOGY_LEVELS, shownId } from '@mce/core';
import { issuesInText, schemaIssues } from '@mce/ingest';
import { positionText, syntaxErrorPosition } from '@mce/ingest';
import { excessDepthAt, MAX_JSON_DEPTH } from '@mce/ingest';
import type { ComputeRequest, MCEClient } from '../mce-client.js';
import { parseTimeText } from '@mce/store';
import { parseResultQueryText, RESULT_QUERY_FIELDS, type ResultQueryField } from '@mce/store';
import { OPENAPI } from './openapi.js';
import { COMPUTATION_STATUSES, Computations, digestOf, type ComputationStatus } from './computations.js';
import { ComputeThread, type ComputeThreadOptions } from './compute-thread.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.js';
import { webRoutes } from '../web/routes.js';
import { signInRoutes } from '../web/sign-in.js';
import { BadRequestError, UnsupportedMediaTypeError, errorAnswer } from './status.js';
import { API_SCOPES, hashApiKey, type ApiKey } from './auth.js';
import { accessLog, corsFor, hostCheck, keyCheck, rateLimit, type ApiLogger, type GuardOptions } from './guard.js';
import { cut, redactSecrets } from './redact.js';
import { BodyReader } from './body-reader.js';
import { withPriceWarnings } from '../price-fallback.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

/** The page size a listing asks for (`limit`, already a non-negative integer), within MAX_PAGE_SIZE. */
function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (limit > MAX_PAGE_SIZE) throw new BadRequestError(`query parameter limit must be at most ${MAX_PAGE_SIZE} (got ${limit}); follow the Link header for the next page`);
  return limit;
}

/**
 * Metric names of a query parameter, as `metrics=A,B` or repeated (`metrics=A&metrics=B`, how most HTTP clients send
 * a list); undefined when absent. Present but naming none is the client's error: an empty filter must not mean
 * "every configured metric" (judged ones cost money).
 */
function names(c: Context, param: string): string[] | undefined {
  const values = c.req.queries(param);
  if (values === undefined) return undefined;
  const out = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (out.length === 0) throw new BadRequestError(`query parameter ${param}: give at least one metric name`);
  return out;
}

function int(c: Context, name: string): number | undefined {
  const v = c.req.query(name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new BadRequestError(`query parameter ${name} must be a non-negative integer (got "${v}")`);
  return Number(v);
}

/** A time query parameter (ISO 8601, UTC without a zone, or epoch ms), checked here so a bad one is the client's error. */
function time(c: Context, name: string): number | undefined {
  const v = c.req.query(name);
  if (v === undefined) return undefined;
  try {
    return parseTimeText(v);
  } catch {
    throw new BadRequestError(`query parameter ${name} must be an ISO 8601 time or epoch milliseconds (got "${v}")`);
  }
}

/** The query parameters of `GET /results`, by the ResultQuery field each fills (session ids: one per parameter). */
const RESULT_PARAMS: Readonly<Record<ResultQueryField, string>> = {
  metrics: 'metrics',
  levels: 'levels',
  sessionIds: 'session',
  from: 'from',
  to: 'to',
  min: 'min',
  max: 'max',
  limit: 'limit',
  offset: 'offset',
};
/** The fields of `GET /results/summary`: the filters, no paging. */
const SUMMARY_FIELDS = RESULT_QUERY_FIELDS.filter((field) => field !== 'limit' && field !== 'offset');

/**
 * The result query of a request, of the route's `fields`. A parameter the route does not know is refused:
 * `metric=Duration` (for `metrics`) silently ignored would answer every result.
 */
function resultQuery(c: Context, fields: readonly ResultQueryField[] = RESULT_QUERY_FIELDS) {
  const fieldOf = new Map(fields.map((field) => [RESULT_PARAMS[field], field]));
  const given = knownQuery(c, [...fieldOf.keys()]);
  const text = Object.fromEntries(Object.entries(given).map(([param, values]) => [fieldOf.get(param), values]));
  return parseResultQueryText(text, { label: (field) => `query parameter ${RESULT_PARAMS[field]}`, name: (field) => RESULT_PARAMS[field] });
}

/** The request's query parameters, 400 naming any the route does not know (`known`). */
function knownQuery(c: Context, known: readonly string[]): Record<string, string[]> {
  const given = c.req.queries();
  const unknown = Object.keys(given).filter((param) => !known.includes(param));
  if (unknown.length > 0) throw new BadRequestError(`unknown query parameter ${unknown.map((p) => JSON.stringify(p)).join(', ')} (known: ${known.join(', ')})`);
  return given;
}

/** A full page may have a next one: its link (RFC 8288, as paginated APIs send it); the body stays the list. */
function linkNextPage(c: Context, limit: number, offset: number, size: number): void {
  if (limit === 0 || size < limit) return;
  const next = new URL(c.req.url);
  next.searchParams.set('limit', String(limit));
  next.searchParams.set('offset', String(offset + limit));
  c.header('Link', `<${next.pathname}${next.search}>; rel="next"`);
}

/** The optional body of `POST /sessions/{id}/compute`. */
const ComputeBodySchema = z
  .object({
    metrics: z.union([z.array(z.string().min(1)).min(1), z.partialRecord(z.enum(ONTOLOGY_LEVELS), z.array(z.string().min(1)))]).optional(),
    runId: z.string().min(1).max(200).optional(),
    recursive: z.boolean().optional(),
  })
  .strict();

async function computeRequest(c: Context): Promise<ComputeRequest> {
  const fromQuery = names(c, 'metrics');
  const text = await bodyText(c);
  if (text.trim() === '') return fromQuery ? { metrics: fromQuery } : {};
  const parsed = ComputeBodySchema.safeParse(parseJson(text));
  if (!parsed.success) {
    // Each fault with its line and column in the body, as POST /sessions names them.
    throw new BadRequestError(`request body: ${issuesInText(text, schemaIssues(parsed.error))}`);
  }
  const { metrics, runId, recursive } = parsed.data;
  if (metrics && fromQuery) throw new BadRequestError('give the metrics in the query or in the body, not both');
  const selected = metrics ?? fromQuery;
  return { ...(selected ? { metrics: selected } : {}), ...(runId ? { runId } : {}), ...(recursive !== undefined ? { recursive } : {}) };
}

/**
 * The request body as text, '' when there is none. A body that says nothing of its type is refused as a typed
 * non-JSON one is (by the middleware): a page of another site can send either without asking.
 */
async function bodyText(c: Context): Promise<string> {
  const text = await c.req.text();
  if (text.trim() !== '' && c.req.header('content-type') === undefined) throw new UnsupportedMediaTypeError('request body must be application/json (got no content type)');
  return text;
}

/** A request body's JSON (400 when it is none, naming where it stops being JSON or nests too deeply). */
function parseJson(text: string): unknown {
  const tooDeep = excessDepthAt(text);
  if (tooDeep) throw new BadRequestError(`request body nests deeper than ${MAX_JSON_DEPTH} levels${positionText(tooDeep)}`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`request body is not JSON${positionText(syntaxErrorPosition(text, err))}`);
  }
}


/**
 * Whether the request asks to be answered before its work is done (RFC 7240 `Prefer: respond-async`, among other
 * preferences; a comma inside a quoted value separates nothing).
 */
function prefersAsync(c: Context): boolean {
  const preferences = c.req.header('prefer')?.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  return preferences.some((p) => p.split(/[;=]/)[0]!.trim().toLowerCase() === 'respond-async');
}

/** The methods of the app's routes whose pattern matches `path` (`:param` is one path segment). */
function methodsOf(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue; // middleware
    const pattern = new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD'); // answered by the GET route
  return [...methods];
}

/** An error as a log field: its message and stack redacted and bounded, its cause's message beside. */
function loggedError(error: unknown, secrets: readonly string[]): { type: string; message: string; stack?: string; cause?: string } {
  const clean = (text: string, max: number) => cut(redactSecrets(text, secrets), max);
  if (!(error instanceof Error)) return { type: typeof error, message: clean(String(error), 2000) };
  const cause = error.cause instanceof Error ? error.cause.message : error.cause === undefined ? undefined : String(error.cause);
  return {
    type: error.name,
    message: clean(error.message, 2000),
    ...(error.stack ? { stack: clean(error.stack, 4000) } : {}),
    ...(cause !== undefined ? { cause: clean(cause, 2000) } : {}),
  };
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
  /**
   * API keys (name, hash, scopes): when any is given, every request but `/healthz` and `/openapi.json` must send
   * `Authorization: Bearer <key>` of a key with the route's scope (401 without a known key, 403 without the scope).
   */
  keys?: readonly ApiKey[];
  /** A shared token, kept for compatibility: a key named `token` with every scope. */
  token?: string;
  /** Where the access log (one line per request) and the causes of 500s go; none: not logged. */
  logger?: ApiLogger;
  /** Served without keys beyond loopback on purpose: every access log line says so. */
  insecureNoAuth?: boolean;
  /** Strings never repeated in a log or an answer (OPENAI_API_KEY, store passwords, …). */
  secrets?: readonly string[];
  /** Requests per second per key (per client address without keys), past which 429 with Retry-After. Default: none. */
  requestsPerSecond?: number;
  /**
   * Origins (`https://app.example.com`) whose pages may call the API from a browser (CORS, preflights answered).
   * Default none: CORS off, no Access-Control-* header sent.
   */
  corsOrigins?: readonly string[];
  /**
   * Computations run in a worker thread with a client of its own opened from this configuration (the server's, so
   * the same store and metrics): a big session then holds the thread, not every request. Default: in place.
   */
  computeThread?: ComputeThreadOptions;
  /** Asynchronous computations (`Prefer: respond-async`) running at once; the others wait their turn. Default 2. */
  maxConcurrentComputations?: number;
  /** Finished asynchronous computations whose status is kept (the oldest finished dropped first). Default 1000. */
  maxFinishedComputations?: number;
  /** Asynchronous computations waiting at most; more are refused with 429 and Retry-After. Default 100. */
  maxQueuedComputations?: number;
  /** Asynchronous computations one API key may have queued or running; more are 429. Default: no limit. */
  maxComputationsPerKey?: number;
  /** The OTLP receiver's `POST /v1/traces` (docs/receiver.md), with its own body limit and content types. */
  otlpTraces?: Hono;
}

/** The host names of the loopback interface, as browsers write them. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];


export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export function createApiApp(client: MCEClient, options: ApiOptions = {}): Hono {
  return apiApp(client, options).app;
}

/** The app and the table of its asynchronous computations (which `serveApi` lets finish on close). */
export function apiApp(client: MCEClient, options: ApiOptions = {}): { app: Hono; computations: Computations; close(): Promise<void> } {
  const app = new Hono();
  const bodyReader = new BodyReader();
  // Computations off the event loop when the server was given what its thread needs (and the thread is built).
  const computeThread = options.computeThread ? new ComputeThread(options.computeThread) : undefined;
  const thread = computeThread?.available ? computeThread : undefined;
  const computations = new Computations({
    ...(options.maxConcurrentComputations !== undefined ? { maxConcurrent: options.maxConcurrentComputations } : {}),
    ...(options.maxFinishedComputations !== undefined ? { maxFinished: options.maxFinishedComputations } : {}),
    ...(options.maxQueuedComputations !== undefined ? { maxQueued: options.maxQueuedComputations } : {}),
    ...(options.maxComputationsPerKey !== undefined ? { maxPerCaller: options.maxComputationsPerKey } : {}),
  });
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Who may ask comes first: a stranger gets 403 / 401, not a word about the body they sent.
  const guard: GuardOptions = {
    keys: [...(options.keys ?? []), ...(options.token !== undefined ? [{ name: 'token', hash: hashApiKey(options.token), scopes: API_SCOPES }] : [])],
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.insecureNoAuth ? { insecureNoAuth: true } : {}),
    secrets: [...(options.secrets ?? []), ...(options.token !== undefined ? [options.token] : [])],
    ...(options.requestsPerSecond !== undefined ? { requestsPerSecond: options.requestsPerSecond } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
  };
  app.use('*', accessLog(guard), corsFor(guard.corsOrigins), hostCheck(guard.allowedHosts, guard.corsOrigins), keyCheck(guard.keys), rateLimit(guard.requestsPerSecond));
  // Past who may ask, before the JSON API's body limit and content type: OTLP takes protobuf, and has its own limit;
  // the web view's sign-in takes a form.
  if (options.otlpTraces) app.route('/', options.otlpTraces);
  app.route('/', signInRoutes(guard.keys));
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json({ error: `request body larger than ${maxBodyBytes} bytes` }, 413),
    }),
  );
  app.use('*', async (c, next) => {
    // A body must say it is JSON: a form or text/plain post is what another site's page can send without asking (an
    // untyped body is refused where it is read, see bodyText).
    const contentType = c.req.header('content-type');
    if (c.req.method === 'POST' && contentType !== undefined) {
      const type = contentType.split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') return c.json({ error: `request body must be application/json (got ${type || 'an empty content type'})` }, 415);
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
    const answer = errorAnswer(error);
    if (answer.retryAfterSeconds !== undefined) c.header('Retry-After', String(answer.retryAfterSeconds));
    if (answer.status !== 500) return c.json({ error: answer.message }, answer.status);
    // The cause goes to the log (with the request's id), not to the client: a store's raw error text is no answer.
    const requestId = c.get('requestId');
    options.logger?.error({ requestId, method: c.req.method, path: cut(redactSecrets(c.req.path, guard.secrets), 256), err: loggedError(error, guard.secrets) }, 'request failed');
    return c.json({ error: `internal server error (request ${requestId})` }, 500);
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/openapi.json', (c) => c.json(OPENAPI));
  app.get('/metrics/catalog', (c) => c.json(client.engine.registry.list().map((r) => r.metric.metadata)));

  app.get('/sessions', async (c) => {
    const q = (n: string) => c.req.query(n);
    const limit = pageSize(int(c, 'limit'));
    const offset = int(c, 'offset') ?? 0;
    const from = time(c, 'from');
    const to = time(c, 'to');
    if (from !== undefined && to !== undefined && from > to) throw new BadRequestError('query parameter from is later than to');
    const page = await client.store.listSessions({
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(q('service') ? { serviceName: q('service') } : {}),
      ...(q('app') ? { appName: q('app') } : {}),
      limit,
      offset,
    });
    linkNextPage(c, limit, offset, page.length);
    return c.json(page);
  });

  app.post('/sessions', async (c) => {
    // Parsed and validated off the event loop when big (body-reader.ts): a 20 MB body would stall every request.
    const read = await bodyReader.read(await bodyText(c));
    if ('error' in read) throw new BadRequestError(read.error);
    await client.store.writeSessions(read.sessions);
    return c.json({ sessionIds: read.sessions.map((s) => s.id), warnings: read.warnings }, 201);
  });

  app.get('/sessions/:id', async (c) => {
    const session = await client.store.getSession(c.req.param('id'));
    if (!session) throw new SessionNotFoundError([c.req.param('id')]);
    return c.json(session);
  });

  app.delete('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    if ((await client.deleteSessions(id)).length === 0) throw new SessionNotFoundError([id]);
    return c.body(null, 204);
  });

  app.post('/sessions/:id/compute', async (c) => {
    const id = c.req.param('id');
    const request = await computeRequest(c);
    // An unknown session is 404 before its metric names are looked at, as on GET …/metrics.
    if ((await client.store.sessionExists([id])).size === 0) throw new SessionNotFoundError([id]);
    // Everything the computation would refuse is refused here (and before a 202): the plan throws its selection errors.
    client.plan(request);
    if (!prefersAsync(c)) {
      if (thread) return c.body(await thread.json(id, request), 200, { 'content-type': 'application/json' });
      const [computation] = await client.computeAndStore(id, request);
      return c.json(withPriceWarnings(computation!));
    }
    const run = thread ? () => thread.digest(id, request) : async () => digestOf((await client.computeAndStore(id, request))[0]!);
    const status = computations.submit(id, run, c.get('apiKeyName') ?? '');
    c.header('Location', `/computations/${status.id}`);
    c.header('Preference-Applied', 'respond-async');
    return c.json(status, 202);
  });

  app.get('/computations', (c) => {
    const given = knownQuery(c, ['status', 'limit', 'offset']).status?.flatMap((v) => v.split(',')).map((v) => v.trim());
    const bad = given?.filter((s) => !(COMPUTATION_STATUSES as readonly string[]).includes(s));
    if (given?.length === 0 || (bad && bad.length > 0)) {
      throw new BadRequestError(`query parameter status must name statuses: ${COMPUTATION_STATUSES.join(', ')} (got ${JSON.stringify(bad?.join(',') ?? '')})`);
    }
    const limit = pageSize(int(c, 'limit'));
    const offset = int(c, 'offset') ?? 0;
    const page = computations.list(given && new Set(given as ComputationStatus['status'][]), { limit, offset });
    linkNextPage(c, limit, offset, page.length);
    return c.json(page);
  });

  app.get('/computations/:id', (c) => {
    const id = c.req.param('id');
    const status = computations.get(id);
    if (!status) return c.json({ error: `Computation not found: ${shownId(id)}` }, 404);
    return c.json(status);
  });

  app.get('/sessions/:id/metrics', async (c) => {
    const metricIds = names(c, 'metrics');
    const recursive = c.req.query('recursive');
    if (recursive !== undefined && recursive !== 'true' && recursive !== 'false') {
      throw new BadRequestError(`query parameter recursive must be true or false (got "${recursive}")`);
    }
    const id = c.req.param('id');
    // Stored results only (compute is POST …/compute); an unknown session is a SessionNotFoundError (404).
    const results = await client.getMetrics(id, {
      computeMissing: false,
      recursive: recursive === 'true',
      ...(metricIds ? { metricIds } : {}),
    });
    return c.json({ sessionId: c.req.param('id'), results, failed: [], skipped: [] });
  });

  app.get('/results', async (c) => {
    const query = resultQuery(c);
    const limit = pageSize(query.limit);
    const offset = query.offset ?? 0;
    const page = await client.queryResults({ ...query, limit, offset }); // an unknown metric: 400 naming the likely one
    linkNextPage(c, limit, offset, page.length);
    return c.json(page);
  });

  // An unknown metric: 400 naming the likely one, as for /results.
  app.get('/results/summary', async (c) => c.json(await client.summarizeResults(resultQuery(c, SUMMARY_FIELDS))));
  // The read-only web view (/, /view/…): HTML pages over the same store.
  app.route('/', webRoutes(client));
  return { app, computations, close: async () => void (await Promise.all([bodyReader.close(), computeThread?.close()])) };
}
