/** The asynchronous computations the server holds: listed a page at a time, read one by one. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { shownId } from '@mce/core';
import { COMPUTATION_STATUSES, type ComputationStatus } from '../computations.js';
import { DEFAULT_PAGE_SIZE, linkNextPage } from '../paging.js';
import { limitParam, listParam, offsetParam, strictQuery } from '../query.js';
import { ComputationStatusSchema } from '../schemas.js';
import type { RouteDeps } from './deps.js';
import { idParams } from './sessions.js';
import { COMMON, error, json } from './responses.js';

const statusParam = listParam('only those in these statuses (comma-separated or repeated)', { enum: [...COMPUTATION_STATUSES] }).transform((given, ctx) => {
  const statuses = given?.flatMap((v) => v.split(',')).map((v) => v.trim());
  const bad = statuses?.filter((s) => !(COMPUTATION_STATUSES as readonly string[]).includes(s));
  if (statuses?.length === 0 || (bad && bad.length > 0)) {
    ctx.addIssue({ code: 'custom', message: `query parameter status must name statuses: ${COMPUTATION_STATUSES.join(', ')} (got ${JSON.stringify(bad?.join(',') ?? '')})` });
    return z.NEVER;
  }
  return statuses && new Set(statuses as ComputationStatus['status'][]);
});

export const listComputationsRoute = createRoute({
  method: 'get',
  path: '/computations',
  operationId: 'listComputations',
  summary: 'the asynchronous computations the server holds (queued, running, and the last finished ones), newest submitted first',
  request: { query: strictQuery({ status: statusParam, limit: limitParam, offset: offsetParam }) },
  responses: {
    200: json(z.array(ComputationStatusSchema), 'their statuses, a page of them'),
    400: error('an unknown status or query parameter'),
    ...COMMON,
  },
});

export const getComputationRoute = createRoute({
  method: 'get',
  path: '/computations/{id}',
  operationId: 'getComputation',
  summary: 'an asynchronous computation: queued, running, succeeded (with a summary and where its results are) or failed (with its error)',
  request: { params: idParams },
  responses: {
    200: json(ComputationStatusSchema, 'its status'),
    404: error('no such computation (never submitted, dropped among the oldest finished, or submitted before the server restarted)'),
    ...COMMON,
  },
});

export function computationRoutes(app: OpenAPIHono, { computations }: RouteDeps): void {
  app.openapi(listComputationsRoute, (c) => {
    const { status, limit = DEFAULT_PAGE_SIZE, offset = 0 } = c.req.valid('query');
    const page = computations.list(status, { limit, offset });
    linkNextPage(c, limit, offset, page.length);
    return c.json(page, 200);
  });

  app.openapi(getComputationRoute, (c) => {
    const { id } = c.req.valid('param');
    const status = computations.get(id);
    if (!status) return c.json({ error: `Computation not found: ${shownId(id)}` }, 404);
    return c.json(status, 200);
  });
}
