/** Stored metric results: a session's, and across sessions (a page at a time, or summarised). */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { parseResultQueryText, type ResultQueryField } from '@mce/store';
import type { ResultCursor, ResultQuery } from '@mce/store';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageSize } from '../paging.js';
import { NDJSON, streamNdjson, wantsNdjson } from '../ndjson.js';
import { decodeCursor, linkNextCursor, readAfterEach } from '../cursor.js';
import type { ResultRecord } from '@mce/core';
import { booleanParam, limitParam, listParam, offsetParam, strictQuery, textParam } from '../query.js';
import { ResultRecordSchema, ResultSummarySchema, SessionComputationSchema, StoredMetricResultSchema } from '../schemas.js';
import type { RouteDeps } from './deps.js';
import { metricsParam } from './compute.js';
import { idParams } from './sessions.js';
import { COMMON, error, json } from './responses.js';
import { serve } from './serve.js';

/** The query parameters of `GET /results`, by the ResultQuery field each fills (session ids: one per parameter). */
const RESULT_PARAMS: Readonly<Record<ResultQueryField, string>> = {
  metrics: 'metrics', levels: 'levels', sessionIds: 'session', from: 'from', to: 'to', min: 'min', max: 'max', limit: 'limit', offset: 'offset',
};
const FIELD_OF = new Map(Object.entries(RESULT_PARAMS).map(([field, param]) => [param, field as ResultQueryField]));

const between = (name: 'from' | 'to') =>
  listParam(`results whose timestamp is ${name === 'from' ? 'at or after' : 'at or before'} this time: ISO 8601 (UTC when it has no zone) or epoch ms`).openapi({
    type: 'string',
  });

/** Where the page before ended, from its `Link` header (opaque): the next page is read after it. */
const cursorParam = textParam('the next page: the cursor of the `Link` header of the page before (opaque)');

/** The filters, as given: checked together by the store's own parser (shared with `mce kg results`). */
const FILTERS = {
  metrics: listParam("results of these metrics: `name` (every provider's) or `provider:name`, comma-separated or the parameter repeated"),
  levels: listParam('results measuring an element of these ontology classes, comma-separated or the parameter repeated (any case)'),
  session: listParam('results of this session; repeat the parameter for several (an id may hold a comma)'),
  from: between('from'),
  to: between('to'),
  min: listParam('results whose value is at least this').openapi({ type: 'number' }),
  max: listParam('results whose value is at most this').openapi({ type: 'number' }),
};
const PAGE = {
  limit: listParam(`page size (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`).openapi({ type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  offset: listParam().openapi({ type: 'integer', minimum: 0, default: 0 }),
};

/** The query's values into a ResultQuery, a bad one named by its parameter (400). */
const toResultQuery = (given: Record<string, string[] | undefined>, ctx: z.RefinementCtx): ResultQuery => {
  const text = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined).map(([param, values]) => [FIELD_OF.get(param)!, values]));
  try {
    return parseResultQueryText(text, { label: (field) => `query parameter ${RESULT_PARAMS[field]}`, name: (field) => RESULT_PARAMS[field] });
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
};

/** The query of a page of `GET /results`: the filters and paging, and the cursor of the page before decoded. */
const toPagedResultQuery = ({ cursor, ...given }: Record<string, string[] | string | undefined>, ctx: z.RefinementCtx): ResultQuery => {
  const query = toResultQuery(given as Record<string, string[] | undefined>, ctx);
  if (cursor === undefined) return query;
  try {
    return { ...query, after: decodeCursor(Array.isArray(cursor) ? cursor[0]! : cursor) };
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
};

/** `Accept: application/x-ndjson` (an Accept parameter is no OpenAPI parameter: the answer's media types say it). */
const ndjsonOf = (row: z.ZodType) => ({ [NDJSON]: { schema: row } });
const LINK_HEADER = { Link: { schema: { type: 'string' as const }, description: 'the next page: `<…>; rel="next"` (a full page only)' } };

export const queryResultsRoute = createRoute({
  method: 'get',
  path: '/results',
  operationId: 'queryResults',
  summary: 'stored metric results across sessions, newest first (ties by result id), a page at a time',
  request: { query: strictQuery({ ...FILTERS, ...PAGE, cursor: cursorParam }).transform(toPagedResultQuery) },
  responses: {
    200: {
      description:
        'results with their Metric; a full page has a `Link: <…&cursor=…>; rel="next"` header, the next page read after the last result of this one. With `Accept: application/x-ndjson`: every result from `offset` (or `cursor`) on (or `limit` of them), one StoredMetricResult a line, streamed',
      content: { 'application/json': { schema: z.array(StoredMetricResultSchema) }, ...ndjsonOf(StoredMetricResultSchema) },
      headers: LINK_HEADER,
    },
    400: error('a bad or unknown query parameter (named), or a metric neither registered nor stored'),
    ...COMMON,
  },
});

export const summarizeResultsRoute = createRoute({
  method: 'get',
  path: '/results/summary',
  operationId: 'summarizeResults',
  summary: 'figures of the stored results the filters keep, one row per Metric and level measured (by Metric id, then level in ontology order)',
  request: { query: strictQuery(FILTERS).transform(toResultQuery) },
  responses: {
    200: json(z.array(ResultSummarySchema), 'the rows; none when no result matches'),
    400: error('a bad or unknown query parameter (named; limit and offset included), or a metric neither registered nor stored'),
    ...COMMON,
  },
});

export const sessionMetricsRoute = createRoute({
  method: 'get',
  path: '/sessions/{id}/metrics',
  operationId: 'getSessionMetrics',
  summary:
    'stored metric results of the session, newest first (ties by id), a page at a time or streamed as NDJSON (failed and skipped lists are always empty: failures are not stored)',
  request: {
    params: idParams,
    query: z.object({ recursive: booleanParam('recursive'), metrics: metricsParam, limit: limitParam, offset: offsetParam, cursor: cursorParam }),
  },
  responses: {
    200: {
      description:
        'a page of the results; a full page has a `Link: <…&cursor=…>; rel="next"` header, the next page read after the last result of this one. With `Accept: application/x-ndjson`: every result from `offset` (or `cursor`) on (or `limit` of them), one ResultRecord a line, streamed',
      content: { 'application/json': { schema: SessionComputationSchema }, ...ndjsonOf(ResultRecordSchema) },
      headers: LINK_HEADER,
    },
    400: error('a bad query parameter or an unknown metric'),
    404: error('no such session'),
    ...COMMON,
  },
});

const cursorOfRecord = (record: ResultRecord): ResultCursor => record;

export function resultRoutes(app: OpenAPIHono, { client, log }: RouteDeps): void {
  serve(app, queryResultsRoute, async (c) => {
    const { after: start, ...query } = c.req.valid('query');
    const read = (after: ResultCursor | undefined, offset: number, limit: number) => client.queryResults({ ...query, offset, limit, ...(after ? { after } : {}) });
    if (wantsNdjson(c.req.header('accept'))) {
      // An unknown metric: 400 naming the likely one, before the stream starts.
      return streamNdjson(c, readAfterEach(read, (row) => row.result, start), query.offset ?? 0, query.limit, log);
    }
    const limit = pageSize(query.limit);
    const page = await read(start, query.offset ?? 0, limit); // an unknown metric: 400 naming the likely one
    linkNextCursor(c, limit, page.length, page.at(-1)?.result);
    return c.json(page, 200);
  });

  // An unknown metric: 400 naming the likely one, as for /results.
  app.openapi(summarizeResultsRoute, async (c) => c.json(await client.summarizeResults(c.req.valid('query')), 200));

  serve(app, sessionMetricsRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { recursive, metrics, limit, offset = 0, cursor } = c.req.valid('query');
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    // Stored results only (compute is POST …/compute); an unknown session is 404, an unknown metric 400.
    const page = (from: ResultCursor | undefined, skip: number, size: number) =>
      client.getStoredMetricsPage(id, { recursive: recursive === true, ...(metrics ? { metricIds: metrics } : {}), limit: size, offset: skip, ...(from ? { after: from } : {}) });
    if (wantsNdjson(c.req.header('accept'))) return streamNdjson(c, readAfterEach(page, cursorOfRecord, after), offset, limit, log);
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const results = await page(after, offset, size);
    linkNextCursor(c, size, results.length, results.at(-1));
    return c.json({ sessionId: id, results, failed: [], skipped: [] }, 200);
  });
}
