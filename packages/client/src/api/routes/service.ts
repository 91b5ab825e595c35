/** The routes about the service itself: health, this API's OpenAPI document, the metric catalog. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MCEClient } from '../../mce-client.js';
import { MetricMetadataSchema } from '../schemas.js';
import { COMMON, json } from './responses.js';

export const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'health',
  summary: 'liveness (never asks for a key)',
  security: [{}],
  responses: { 200: json(z.object({ status: z.literal('ok') }), 'ok'), ...COMMON },
});

export const openApiRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  operationId: 'openapi',
  summary: 'this document',
  security: [{}],
  responses: { 200: json(z.object({}).passthrough(), 'the OpenAPI document'), ...COMMON },
});

export const catalogRoute = createRoute({
  method: 'get',
  path: '/metrics/catalog',
  operationId: 'listMetrics',
  summary: 'registered metrics',
  responses: { 200: json(z.array(MetricMetadataSchema), 'metric metadata list'), ...COMMON },
});

export function serviceRoutes(app: OpenAPIHono, client: MCEClient, document: () => object): void {
  app.openapi(healthRoute, (c) => c.json({ status: 'ok' as const }, 200));
  app.openapi(openApiRoute, (c) => c.json(document(), 200));
  app.openapi(catalogRoute, (c) => c.json(client.engine.registry.list().map((r) => r.metric.metadata), 200));
}
