/**
 * The OpenAPI 3.1 document (served at /openapi.json), generated from the app's route definitions and their zod
 * schemas; the session format is core's published JSON Schema (itself generated from core's zod schema).
 */
import { createRequire } from 'node:module';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ComputeRequestSchema } from './schemas.js';

// OpenAPI 3.1 schemas are JSON Schema 2020-12, and its `$id` keeps its own `#/$defs/…` references resolving inside it.
const SESSION_SCHEMA = createRequire(import.meta.url)('@mce/core/session.schema.json') as Record<string, unknown>;

export const API_TITLE = 'mce REST API';
export const API_VERSION = '0.3.0';

/** The components every route may refer to without a zod schema of its own. */
export function registerSharedComponents(app: OpenAPIHono): void {
  app.openAPIRegistry.registerComponent('schemas', 'Session', SESSION_SCHEMA);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' });
  // Read by its route's handler (see routes/compute.ts), so referred to by name.
  app.openAPIRegistry.register('ComputeRequest', ComputeRequestSchema);
}

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** The document of the routes defined so far (built once: the routes are all defined before the first request). */
export function openApiDocument(app: OpenAPIHono): () => OpenApiDocument {
  let document: OpenApiDocument | undefined;
  return () =>
    (document ??= app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: { title: API_TITLE, version: API_VERSION, description: 'Sessions, metric computation and stored metric results of mce.' },
      // A key is needed only when the server has keys (api.keys, MCE_API_KEYS, MCE_API_TOKEN); its scope follows the
      // method: GET read, POST write, DELETE admin.
      security: [{}, { bearerAuth: [] }],
    }));
}
