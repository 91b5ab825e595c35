/** `POST /sessions/{id}/compute`: compute a stored session's metrics and store the results, now or in the background. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { SessionNotFoundError } from '@mce/core';
import { issuesInText, schemaIssues } from '@mce/ingest';
import type { ComputeRequest } from '../../mce-client.js';
import { digestOf } from '../computations.js';
import { bodyText, parseJson } from '../json-body.js';
import { namesParam } from '../query.js';
import { ComputationStatusSchema, ComputeRequestSchema, SessionComputationSchema } from '../schemas.js';
import { BadRequestError } from '../status.js';
import type { RouteDeps } from './deps.js';
import { idParams } from './sessions.js';
import { COMMON, WITH_BODY, error, json } from './responses.js';
import { serve } from './serve.js';
import { withPriceWarnings } from '../../price-fallback.js';

export const metricsParam = namesParam('metrics', 'metric names (`name` or `provider:name`), comma-separated or the parameter repeated');

export const computeRoute = createRoute({
  method: 'post',
  path: '/sessions/{id}/compute',
  operationId: 'computeSession',
  summary: 'compute metrics of a stored session and store the results (default: the configured metrics); with `Prefer: respond-async`, in the background',
  request: {
    params: idParams,
    query: z.object({ metrics: metricsParam }),
    headers: z.object({
      Prefer: z.string().optional().openapi({
        description: '`respond-async` (RFC 7240, among other preferences): checked as the synchronous form is, then answered 202 at once',
      }),
    }),
    // Read in the handler (an empty body is no body; a fault is named with its line and column), against this schema.
    body: { required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/ComputeRequest' } } } },
  },
  responses: {
    200: json(SessionComputationSchema, 'the computation: results, and the metrics that failed or were skipped (never stored)'),
    202: {
      ...json(ComputationStatusSchema, 'with `Prefer: respond-async`: the computation was queued (or started); `Location` is where its status is read'),
      headers: { Location: { schema: { type: 'string' } }, 'Preference-Applied': { schema: { type: 'string', const: 'respond-async' } } },
    },
    400: error('an unknown metric, a bad body (each fault named with its line and column in the body, as on POST /sessions), or metrics given both in the query and the body'),
    404: error('no such session'),
    ...WITH_BODY,
    ...COMMON,
    429: error('asynchronous: the queue is full, or the API key has its most computations queued or running (Retry-After says when to retry)'),
    503: error('the store is busy (Retry-After says when to retry), or the server is shutting down (no new asynchronous computation)'),
  },
});

/** The computation asked for: metrics from the query or the body (not both), the body's run id and recursion. */
async function computeRequest(c: Context, fromQuery: string[] | undefined): Promise<ComputeRequest> {
  const text = await bodyText(c);
  if (text.trim() === '') return fromQuery ? { metrics: fromQuery } : {};
  const parsed = ComputeRequestSchema.safeParse(parseJson(text));
  // Each fault with its line and column in the body, as POST /sessions names them.
  if (!parsed.success) throw new BadRequestError(`request body: ${issuesInText(text, schemaIssues(parsed.error))}`);
  const { metrics, runId, recursive } = parsed.data;
  if (metrics && fromQuery) throw new BadRequestError('give the metrics in the query or in the body, not both');
  const selected = metrics ?? fromQuery;
  return { ...(selected ? { metrics: selected } : {}), ...(runId ? { runId } : {}), ...(recursive !== undefined ? { recursive } : {}) };
}

/**
 * Whether the request asks to be answered before its work is done (RFC 7240 `Prefer: respond-async`, among other
 * preferences; a comma inside a quoted value separates nothing).
 */
export function prefersAsync(prefer: string | undefined): boolean {
  const preferences = prefer?.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  return preferences.some((p) => p.split(/[;=]/)[0]!.trim().toLowerCase() === 'respond-async');
}

export function computeRoutes(app: OpenAPIHono, { client, computations, thread }: RouteDeps): void {
  // The compute thread answers JSON already written and encoded (a big computation is not parsed only to be written again).
  serve(app, computeRoute, async (c) => {
    const { id } = c.req.valid('param');
    const request = await computeRequest(c, c.req.valid('query').metrics);
    // An unknown session is 404 before its metric names are looked at, as on GET …/metrics.
    if ((await client.store.sessionExists([id])).size === 0) throw new SessionNotFoundError([id]);
    // Everything the computation would refuse is refused here (and before a 202): the plan throws its selection errors.
    client.plan(request);
    if (!prefersAsync(c.req.header('prefer'))) {
      if (thread) {
        // A stream, not bytes: headers set after the route (the access log's) would copy a byte body, on the loop.
        const { stream, byteLength } = await thread.json(id, request);
        return c.body(stream, 200, { 'content-type': 'application/json', 'content-length': String(byteLength) });
      }
      const [computation] = await client.computeAndStore(id, request);
      return c.json(withPriceWarnings(computation!), 200);
    }
    const run = thread ? () => thread.digest(id, request) : async () => digestOf((await client.computeAndStore(id, request))[0]!);
    const status = computations.submit(id, run, c.get('apiKeyName') ?? '');
    c.header('Location', `/computations/${status.id}`);
    c.header('Preference-Applied', 'respond-async');
    return c.json(status, 202);
  });
}
