/**
 * The REST API as a Hono app over an MCEClient, assembled by step: who may ask (guard.ts), then the bodies it takes
 * (middleware.ts), the routes of each resource (routes/, each with its OpenAPI definition), and the answers no route
 * gives (answers.ts). The OpenAPI document is generated from the routes (document.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import type { MCEClient } from '../mce-client.js';
import { webRoutes } from '../web/routes.js';
import { signInRoutes } from '../web/sign-in.js';
import { API_SCOPES, hashApiKey, type ApiKey } from './auth.js';
import { notFound, onError } from './answers.js';
import { BodyReader } from './body-reader.js';
import { Computations } from './computations.js';
import { ComputeThread, type ComputeThreadOptions } from './compute-thread.js';
import { openApiDocument, registerSharedComponents } from './document.js';
import { accessLog, corsFor, hostCheck, keyCheck, rateLimit, type ApiLogger, type GuardOptions } from './guard.js';
import { DEFAULT_MAX_BODY_BYTES, jsonBodyLimit, jsonContentType } from './middleware.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.js';
import { refuseInvalid } from './query.js';
import { computationRoutes } from './routes/computations.js';
import { computeRoutes } from './routes/compute.js';
import type { RouteDeps } from './routes/deps.js';
import { resultRoutes } from './routes/results.js';
import { serviceRoutes } from './routes/service.js';
import { sessionRoutes } from './routes/sessions.js';

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

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
  otlpTraces?: OpenAPIHono;
  /**
   * More routes served behind the same guard and JSON body limit: `mce serve` mounts the telemetry-hub routes of
   * `@mce/legacy` here when that package is installed (docs/legacy.md).
   */
  extraRoutes?: ReadonlyArray<Hono>;
}

/** The host names of the loopback interface, as browsers write them. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];


export function createApiApp(client: MCEClient, options: ApiOptions = {}): OpenAPIHono {
  return apiApp(client, options).app;
}

/** Who may ask, from the options: the keys (the shared token as a full-access key), hosts, limits, secrets. */
export function guardOptions(options: ApiOptions): GuardOptions {
  const token = options.token;
  return {
    keys: [...(options.keys ?? []), ...(token !== undefined ? [{ name: 'token', hash: hashApiKey(token), scopes: API_SCOPES }] : [])],
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.insecureNoAuth ? { insecureNoAuth: true } : {}),
    secrets: [...(options.secrets ?? []), ...(token !== undefined ? [token] : [])],
    ...(options.requestsPerSecond !== undefined ? { requestsPerSecond: options.requestsPerSecond } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
  };
}

/** The table of asynchronous computations, of the options' limits. */
function computationsOf(options: ApiOptions): Computations {
  return new Computations({
    ...(options.maxConcurrentComputations !== undefined ? { maxConcurrent: options.maxConcurrentComputations } : {}),
    ...(options.maxFinishedComputations !== undefined ? { maxFinished: options.maxFinishedComputations } : {}),
    ...(options.maxQueuedComputations !== undefined ? { maxQueued: options.maxQueuedComputations } : {}),
    ...(options.maxComputationsPerKey !== undefined ? { maxPerCaller: options.maxComputationsPerKey } : {}),
  });
}

/** The JSON API's routes, each resource's in its module. */
export function apiRoutes(app: OpenAPIHono, deps: RouteDeps): void {
  serviceRoutes(app, deps.client, openApiDocument(app));
  sessionRoutes(app, deps);
  computeRoutes(app, deps);
  computationRoutes(app, deps);
  resultRoutes(app, deps);
}

/** The app and the table of its asynchronous computations (which `serveApi` lets finish on close). */
export function apiApp(client: MCEClient, options: ApiOptions = {}): { app: OpenAPIHono; computations: Computations; close(): Promise<void> } {
  // A request that fails a route's checks is a 400 with `{ error }`, as every other refusal.
  const app = new OpenAPIHono({ defaultHook: refuseInvalid });
  registerSharedComponents(app);
  const guard = guardOptions(options);
  // Who may ask comes first: a stranger gets 403 / 401, not a word about the body they sent.
  app.use('*', accessLog(guard), corsFor(guard.corsOrigins), hostCheck(guard.allowedHosts, guard.corsOrigins), keyCheck(guard.keys), rateLimit(guard.requestsPerSecond));
  // Past who may ask, before the JSON API's body limit and content type: OTLP takes protobuf, and has its own limit;
  // the web view's sign-in takes a form.
  if (options.otlpTraces) app.route('/', options.otlpTraces);
  app.route('/', signInRoutes(guard.keys));
  app.use('*', jsonBodyLimit(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES), jsonContentType());
  app.notFound(notFound(app));
  app.onError(onError(guard.logger, guard.secrets));
  const bodyReader = new BodyReader();
  // Computations off the event loop when the server was given what its thread needs (and the thread is built).
  const computeThread = options.computeThread ? new ComputeThread(options.computeThread) : undefined;
  const computations = computationsOf(options);
  const log = { logger: guard.logger, secrets: guard.secrets };
  apiRoutes(app, { client, bodyReader, computations, thread: computeThread?.available ? computeThread : undefined, log });
  for (const routes of options.extraRoutes ?? []) app.route('/', routes);
  // The read-only web view (/, /view/…): HTML pages over the same store.
  app.route('/', webRoutes(client));
  return { app, computations, close: async () => void (await Promise.all([bodyReader.close(), computeThread?.close()])) };
}
