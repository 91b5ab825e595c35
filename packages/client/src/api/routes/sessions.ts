/** The sessions: listed a page at a time, stored from a session document, read and deleted one by one. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { SessionNotFoundError } from '@mce/core';
import { bodyReadOptions } from '../json-body.js';
import { DEFAULT_PAGE_SIZE, linkNextPage } from '../paging.js';
import { limitParam, offsetParam, textParam, timeParam } from '../query.js';
import { SESSION_REF, SessionSummarySchema, StoredSessionsSchema } from '../schemas.js';
import { BadRequestError } from '../status.js';
import type { RouteDeps } from './deps.js';
import { COMMON, WITH_BODY, error, json } from './responses.js';
import { serve } from './serve.js';

export const idParams = z.object({ id: z.string() });
const LINK_HEADER = { Link: { schema: { type: 'string' as const }, description: 'the next page: `<…>; rel="next"` (a full page only)' } };

const between = (name: 'from' | 'to') =>
  timeParam(name, `sessions starting ${name === 'from' ? 'at or after' : 'at or before'} this time: ISO 8601 (UTC when it has no zone) or epoch ms`);

export const listSessionsRoute = createRoute({
  method: 'get',
  path: '/sessions',
  operationId: 'listSessions',
  summary: 'stored sessions, newest first, a page at a time',
  // Checked in this order: a bad page first, then the times (as the parameters were always checked).
  request: { query: z.object({ limit: limitParam, offset: offsetParam, from: between('from'), to: between('to'), service: textParam(), app: textParam() }) },
  responses: {
    200: { ...json(z.array(SessionSummarySchema), 'session summaries; a full page has a `Link: <…>; rel="next"` header'), headers: LINK_HEADER },
    400: error('a bad query parameter'),
    ...COMMON,
  },
});

export const storeSessionsRoute = createRoute({
  method: 'post',
  path: '/sessions',
  operationId: 'storeSessions',
  summary: 'store sessions given in the mce session JSON format (a session already stored is merged with it)',
  // Described, not validated here: a big body is parsed and checked off the event loop (body-reader.ts).
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: { oneOf: [SESSION_REF, { type: 'object', required: ['sessions'], properties: { sessions: { type: 'array', items: SESSION_REF } } }] },
        },
      },
    },
  },
  responses: {
    201: json(StoredSessionsSchema, 'ids of the stored sessions, and warnings about fields of the body the format does not define (ignored)'),
    400: error('not JSON (named where it stops being JSON), or not an mce session document (the offending fields are named, each with its line and column in the body)'),
    ...WITH_BODY,
    ...COMMON,
  },
});

export const getSessionRoute = createRoute({
  method: 'get',
  path: '/sessions/{id}',
  operationId: 'getSession',
  summary: 'one session with its full context',
  request: { params: idParams },
  responses: { 200: json(SESSION_REF, 'the session'), 404: error('no such session'), ...COMMON },
});

export const deleteSessionRoute = createRoute({
  method: 'delete',
  path: '/sessions/{id}',
  operationId: 'deleteSession',
  summary: 'remove the session with its calls, MCP servers and stored results (Metric definitions stay); posted again later, it is a new session',
  request: { params: idParams },
  responses: { 204: { description: 'removed' }, 404: error('no such session'), ...COMMON },
});

export function sessionRoutes(app: OpenAPIHono, { client, bodyReader }: RouteDeps): void {
  app.openapi(listSessionsRoute, async (c) => {
    const { limit = DEFAULT_PAGE_SIZE, offset = 0, from, to, service, app: appName } = c.req.valid('query');
    if (from !== undefined && to !== undefined && from > to) throw new BadRequestError('query parameter from is later than to');
    const page = await client.store.listSessions({
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(service ? { serviceName: service } : {}),
      ...(appName ? { appName } : {}),
      limit,
      offset,
    });
    linkNextPage(c, limit, offset, page.length);
    return c.json(page, 200);
  });

  app.openapi(storeSessionsRoute, async (c) => {
    // Streamed to a file, decoded, parsed and validated off the event loop when big (body-reader.ts): a 20 MB body
    // would stall every request.
    const read = await bodyReader.readStream(c.req.raw.body, bodyReadOptions(c));
    if ('error' in read) throw new BadRequestError(read.error);
    await client.store.writeSessions(read.sessions);
    return c.json({ sessionIds: read.sessions.map((s) => s.id), warnings: read.warnings }, 201);
  });

  serve(app, getSessionRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = await client.store.getSession(id);
    if (!session) throw new SessionNotFoundError([id]);
    return c.json(session, 200);
  });

  app.openapi(deleteSessionRoute, async (c) => {
    const { id } = c.req.valid('param');
    if ((await client.deleteSessions(id)).length === 0) throw new SessionNotFoundError([id]);
    return c.body(null, 204);
  });
}
