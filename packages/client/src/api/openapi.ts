/** The OpenAPI 3.1 description of the REST API (served at /openapi.json). */
import { createRequire } from 'node:module';

// The published JSON Schema of the session format, embedded: OpenAPI 3.1 schemas are JSON Schema 2020-12, and its
// `$id` keeps its own `#/$defs/…` references resolving inside it.
const SESSION_SCHEMA = createRequire(import.meta.url)('@mce/core/session.schema.json') as Record<string, unknown>;

const sessionComputation = {
  type: 'object',
  required: ['sessionId', 'results', 'failed', 'skipped'],
  properties: {
    sessionId: { type: 'string' },
    results: { type: 'array', items: { $ref: '#/components/schemas/ResultRecord' } },
    failed: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, level: { type: 'string' }, measures: { type: 'string' }, error: { type: 'string' }, transient: { const: true } },
      },
    },
    skipped: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, level: { type: 'string' }, measures: { type: 'string' }, reason: { type: 'string' } } } },
  },
};

const error = { description: 'error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'mce REST API', version: '0.1.0', description: 'Sessions, metric computation and stored metric results of mce.' },
  paths: {
    '/healthz': { get: { summary: 'liveness', responses: { 200: { description: 'ok' } } } },
    '/metrics/catalog': { get: { summary: 'registered metrics', responses: { 200: { description: 'metric metadata list' } } } },
    '/sessions': {
      get: {
        summary: 'stored sessions, newest first',
        parameters: [
          ...['from', 'to', 'service', 'app'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
          ...['limit', 'offset'].map((name) => ({ name, in: 'query', schema: { type: 'integer', minimum: 0 } })),
        ],
        responses: { 200: { description: 'session summaries' }, 400: error },
      },
      post: {
        summary: 'store sessions given in the mce session JSON format',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/Session' },
                  { type: 'object', required: ['sessions'], properties: { sessions: { type: 'array', items: { $ref: '#/components/schemas/Session' } } } },
                ],
              },
            },
          },
        },
        responses: { 201: { description: 'ids of the stored sessions' }, 400: error, 413: error },
      },
    },
    '/sessions/{id}': { get: { summary: 'one session with its full context', parameters: [idParam], responses: { 200: { description: 'the session' }, 404: error } } },
    '/sessions/{id}/compute': {
      post: {
        summary: 'compute the configured metrics (or ?metrics=A,B) and store the results',
        parameters: [idParam, { name: 'metrics', in: 'query', schema: { type: 'string' } }],
        responses: { 200: { description: 'the computation', content: { 'application/json': { schema: sessionComputation } } }, 404: error, 400: error },
      },
    },
    '/sessions/{id}/metrics': {
      get: {
        summary: 'stored metric results of the session, newest first',
        parameters: [idParam, { name: 'recursive', in: 'query', schema: { type: 'boolean' } }, { name: 'metrics', in: 'query', schema: { type: 'string' } }],
        responses: { 200: { description: 'results', content: { 'application/json': { schema: sessionComputation } } }, 400: error, 404: error },
      },
    },
  },
  components: {
    schemas: {
      Session: SESSION_SCHEMA,
      Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
      ResultRecord: {
        type: 'object',
        required: ['id', 'name', 'provider', 'level', 'measures', 'result', 'unit', 'reasoning', 'evaluationModel', 'evaluationPromptTokenCount', 'evaluationCompletionTokenCount', 'evaluationTotalTokenCount', 'evaluationCost', 'timestamp'],
        properties: {
          id: { type: 'string' }, name: { type: 'string' }, provider: { type: 'string' }, level: { type: 'string' }, measures: { type: 'string' },
          result: { type: 'number' }, unit: { type: 'string' }, reasoning: { type: 'string' }, evaluationModel: { type: ['string', 'null'] },
          evaluationPromptTokenCount: { type: 'integer' }, evaluationCompletionTokenCount: { type: 'integer' }, evaluationTotalTokenCount: { type: 'integer' },
          evaluationCost: { type: 'number' }, timestamp: { type: 'string', format: 'date-time' }, details: { type: 'object' },
        },
      },
    },
  },
} as const;
