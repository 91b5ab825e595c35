/** The OpenAPI 3.1 description of the REST API (served at /openapi.json). */
import { createRequire } from 'node:module';
import { MAX_UNKNOWN_FIELD_PLACES, ONTOLOGY_LEVELS } from '@mce/core';
import { COMPUTATION_STATUSES, FAILURES_KEPT } from './computations.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.js';

// The published JSON Schema of the session format, embedded: OpenAPI 3.1 schemas are JSON Schema 2020-12, and its
// `$id` keeps its own `#/$defs/…` references resolving inside it.
const SESSION_SCHEMA = createRequire(import.meta.url)('@mce/core/session.schema.json') as Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const strings = { type: 'array', items: { type: 'string' } };

/** The one warning of a computation that priced LLM calls like gpt-4o (price-fallback.ts). */
const priceWarnings = {
  type: 'array',
  description: 'present when LLM calls were priced like gpt-4o (no price for their model, no cost recorded on their span): their Cost is an estimate',
  items: {
    type: 'object',
    required: ['code', 'message', 'models'],
    additionalProperties: false,
    properties: {
      code: { const: 'price-fallback' },
      message: { type: 'string' },
      models: { type: 'object', description: 'model → LLM calls priced like gpt-4o', additionalProperties: { type: 'integer', minimum: 1 } },
    },
  },
};

const sessionComputation = {
  type: 'object',
  required: ['sessionId', 'results', 'failed', 'skipped'],
  properties: {
    sessionId: { type: 'string' },
    results: { type: 'array', items: ref('ResultRecord') },
    failed: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'level', 'measures', 'error'],
        properties: { name: { type: 'string' }, level: { type: 'string' }, measures: { type: 'string' }, error: { type: 'string' }, transient: { const: true } },
      },
    },
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'level', 'measures', 'reason'],
        properties: { name: { type: 'string' }, level: { type: 'string' }, measures: { type: 'string' }, reason: { type: 'string' } },
      },
    },
    warnings: priceWarnings,
  },
};

/** What a succeeded asynchronous computation made (its results are in the store, at `resultsUrl`). */
const computationSummary = {
  type: 'object',
  required: ['results', 'failed', 'skipped', 'failures', 'resultsUrl'],
  properties: {
    results: { type: 'integer', minimum: 0, description: 'results stored' },
    failed: { type: 'integer', minimum: 0, description: 'metrics that failed (never stored)' },
    skipped: { type: 'integer', minimum: 0 },
    failures: { ...sessionComputation.properties.failed, maxItems: FAILURES_KEPT, description: `the first ${FAILURES_KEPT} failures` },
    resultsUrl: { type: 'string', description: 'GET /results of the session over the run: its stored results, paged' },
    warnings: priceWarnings,
  },
};

/** An asynchronous computation's status: `summary` once it succeeded, `error` once it failed. */
const computationStatus = (() => {
  const base = { id: { type: 'string' }, sessionId: { type: 'string' }, submittedAt: { type: 'string', format: 'date-time' } };
  const started = { ...base, startedAt: { type: 'string', format: 'date-time' } };
  const finished = { ...started, finishedAt: { type: 'string', format: 'date-time' } };
  const shape = (status: string, properties: object, required: string[]) => ({
    type: 'object',
    required: ['id', 'sessionId', 'status', 'submittedAt', ...required],
    additionalProperties: false,
    properties: { ...properties, status: { const: status } },
  });
  return {
    description: 'an asynchronous computation (kept in the server\'s memory: lost when it restarts; the results it stored are not)',
    oneOf: [
      shape('queued', base, []),
      shape('running', started, ['startedAt']),
      shape('succeeded', { ...finished, summary: computationSummary }, ['startedAt', 'finishedAt', 'summary']),
      shape('failed', { ...finished, error: { type: 'string' } }, ['startedAt', 'finishedAt', 'error']),
    ],
  };
})();

const error = (description: string) => ({ description, content: json(ref('Error')) });
/** What any route may answer besides its own statuses (401 and 403 for keys only when the server has keys). */
const common = {
  401: error('a missing or unknown API key (when the server has keys; WWW-Authenticate says Bearer)'),
  403: error('a Host or Origin the server does not serve, or an API key without the scope the route needs'),
  429: error('past the rate limit of the API key (Retry-After says when to retry)'),
  405: error('a known path asked with another method (the Allow header lists the methods)'),
  500: error('the server failed'),
  503: error('the store is busy (Retry-After says when to retry)'),
};
const withBody = { 413: error('request body above the size limit'), 415: error('request body is not application/json') };
/** `limit` and `offset` of a listing (a full page has a `Link: <…>; rel="next"` header). */
const pageParams = [
  {
    name: 'limit',
    in: 'query',
    description: `page size (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`,
    schema: { type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
];
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const metricsParam = {
  name: 'metrics',
  in: 'query',
  description: 'metric names (`name` or `provider:name`), comma-separated or the parameter repeated',
  style: 'form',
  explode: true,
  schema: strings,
};

/** The filters of `GET /results` and `GET /results/summary`. */
const resultFilterParams = [
  { ...metricsParam, description: 'results of these metrics: `name` (every provider\'s) or `provider:name`, comma-separated or the parameter repeated' },
  {
    name: 'levels',
    in: 'query',
    description: 'results measuring an element of these ontology classes, comma-separated or the parameter repeated (any case)',
    style: 'form',
    explode: true,
    schema: { type: 'array', items: { type: 'string' } },
  },
  { name: 'session', in: 'query', description: 'results of this session; repeat the parameter for several (an id may hold a comma)', style: 'form', explode: true, schema: strings },
  ...['from', 'to'].map((name) => ({
    name,
    in: 'query',
    description: `results whose timestamp is ${name === 'from' ? 'at or after' : 'at or before'} this time: ISO 8601 (UTC when it has no zone) or epoch ms`,
    schema: { type: 'string' },
  })),
  { name: 'min', in: 'query', description: 'results whose value is at least this', schema: { type: 'number' } },
  { name: 'max', in: 'query', description: 'results whose value is at most this', schema: { type: 'number' } },
];

export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'mce REST API', version: '0.3.0', description: 'Sessions, metric computation and stored metric results of mce.' },
  // An API key is required only when the server has keys (api.keys, MCE_API_KEYS, MCE_API_TOKEN); its scope follows
  // the method: GET read, POST write, DELETE admin.
  security: [{}, { bearerAuth: [] }],
  paths: {
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'liveness (never asks for the token)',
        security: [{}],
        responses: { 200: { description: 'ok', content: json({ type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }) }, ...common },
      },
    },
    '/v1/traces': {
      post: {
        operationId: 'otlpTraces',
        summary: 'OTLP/HTTP trace export: spans stored as sessions, each evaluated once complete (docs/receiver.md)',
        requestBody: {
          required: true,
          content: { 'application/x-protobuf': { schema: { type: 'string', format: 'binary', description: 'an ExportTraceServiceRequest' } }, 'application/json': { schema: { type: 'object', description: 'an ExportTraceServiceRequest in the protobuf JSON mapping' } } },
        },
        responses: {
          200: { description: 'an ExportTraceServiceResponse, in the request encoding; partialSuccess names the spans rejected', content: { 'application/x-protobuf': { schema: { type: 'string', format: 'binary' } }, 'application/json': { schema: { type: 'object' } } } },
          400: { description: 'a body that does not decode (google.rpc.Status)' },
          413: { description: 'a body larger than receiver.max_body_mb, sent or gunzipped' },
          415: { description: 'another content type or encoding' },
          429: { description: 'the buffer is full: retry after Retry-After' },
          503: { description: 'the store is failing, or the receiver stopping: retry after Retry-After' },
        },
      },
    },
    '/openapi.json': {
      get: { operationId: 'openapi', summary: 'this document', responses: { 200: { description: 'the OpenAPI document', content: json({ type: 'object' }) }, ...common } },
    },
    '/metrics/catalog': {
      get: {
        operationId: 'listMetrics',
        summary: 'registered metrics',
        responses: { 200: { description: 'metric metadata list', content: json({ type: 'array', items: ref('MetricMetadata') }) }, ...common },
      },
    },
    '/sessions': {
      get: {
        operationId: 'listSessions',
        summary: 'stored sessions, newest first, a page at a time',
        parameters: [
          ...['from', 'to'].map((name) => ({
            name,
            in: 'query',
            description: `sessions starting ${name === 'from' ? 'at or after' : 'at or before'} this time: ISO 8601 (UTC when it has no zone) or epoch ms`,
            schema: { type: 'string' },
          })),
          { name: 'service', in: 'query', schema: { type: 'string' } },
          { name: 'app', in: 'query', schema: { type: 'string' } },
          ...pageParams,
        ],
        responses: {
          200: {
            description: 'session summaries; a full page has a `Link: <…>; rel="next"` header',
            headers: { Link: { schema: { type: 'string' } } },
            content: json({ type: 'array', items: ref('SessionSummary') }),
          },
          400: error('a bad query parameter'),
          ...common,
        },
      },
      post: {
        operationId: 'storeSessions',
        summary: 'store sessions given in the mce session JSON format (a session already stored is merged with it)',
        requestBody: {
          required: true,
          content: json({
            oneOf: [ref('Session'), { type: 'object', required: ['sessions'], properties: { sessions: { type: 'array', items: ref('Session') } } }],
          }),
        },
        responses: {
          201: {
            description: 'ids of the stored sessions, and warnings about fields of the body the format does not define (ignored)',
            content: json({
              type: 'object',
              required: ['sessionIds', 'warnings'],
              properties: { sessionIds: strings, warnings: { type: 'array', items: ref('UnknownFieldWarning') } },
            }),
          },
          400: error('not JSON (named where it stops being JSON), or not an mce session document (the offending fields are named, each with its line and column in the body)'),
          ...withBody,
          ...common,
        },
      },
    },
    '/sessions/{id}': {
      get: {
        operationId: 'getSession',
        summary: 'one session with its full context',
        parameters: [idParam],
        responses: { 200: { description: 'the session', content: json(ref('Session')) }, 404: error('no such session'), ...common },
      },
      delete: {
        operationId: 'deleteSession',
        summary:
          'remove the session with its calls, MCP servers and stored results (Metric definitions stay); posted again later, it is a new session',
        parameters: [idParam],
        responses: { 204: { description: 'removed' }, 404: error('no such session'), ...common },
      },
    },
    '/sessions/{id}/compute': {
      post: {
        operationId: 'computeSession',
        summary:
          'compute metrics of a stored session and store the results (default: the configured metrics); with `Prefer: respond-async`, in the background',
        parameters: [
          idParam,
          metricsParam,
          {
            name: 'Prefer',
            in: 'header',
            description: '`respond-async` (RFC 7240, among other preferences): checked as the synchronous form is, then answered 202 at once',
            schema: { type: 'string' },
          },
        ],
        requestBody: { required: false, content: json(ref('ComputeRequest')) },
        responses: {
          200: { description: 'the computation: results, and the metrics that failed or were skipped (never stored)', content: json(sessionComputation) },
          202: {
            description: 'with `Prefer: respond-async`: the computation was queued (or started); `Location` is where its status is read',
            headers: { Location: { schema: { type: 'string' } }, 'Preference-Applied': { schema: { const: 'respond-async' } } },
            content: json(ref('ComputationStatus')),
          },
          400: error('an unknown metric, a bad body (each fault named with its line and column in the body, as on POST /sessions), or metrics given both in the query and the body'),
          404: error('no such session'),
          ...withBody,
          ...common,
          429: error('asynchronous: the queue is full, or the API key has its most computations queued or running (Retry-After says when to retry)'),
          503: error('the store is busy (Retry-After says when to retry), or the server is shutting down (no new asynchronous computation)'),
        },
      },
    },
    '/computations': {
      get: {
        operationId: 'listComputations',
        summary: 'the asynchronous computations the server holds (queued, running, and the last finished ones), newest submitted first',
        parameters: [
          {
            name: 'status',
            in: 'query',
            description: 'only those in these statuses (comma-separated or repeated)',
            schema: { type: 'array', items: { enum: [...COMPUTATION_STATUSES] } },
            style: 'form',
            explode: true,
          },
          ...pageParams,
        ],
        responses: {
          200: { description: 'their statuses, a page of them', content: json({ type: 'array', items: ref('ComputationStatus') }) },
          400: error('an unknown status or query parameter'),
          ...common,
        },
      },
    },
    '/computations/{id}': {
      get: {
        operationId: 'getComputation',
        summary: 'an asynchronous computation: queued, running, succeeded (with the computation the synchronous form answers) or failed (with its error)',
        parameters: [idParam],
        responses: {
          200: { description: 'its status', content: json(ref('ComputationStatus')) },
          404: error('no such computation (never submitted, dropped among the oldest finished, or submitted before the server restarted)'),
          ...common,
        },
      },
    },
    '/sessions/{id}/metrics': {
      get: {
        operationId: 'getSessionMetrics',
        summary: 'stored metric results of the session, newest first (failed and skipped lists are always empty: failures are not stored)',
        parameters: [idParam, { name: 'recursive', in: 'query', schema: { type: 'boolean' } }, metricsParam],
        responses: {
          200: { description: 'results', content: json(sessionComputation) },
          400: error('a bad query parameter or an unknown metric'),
          404: error('no such session'),
          ...common,
        },
      },
    },
    '/results': {
      get: {
        operationId: 'queryResults',
        summary: 'stored metric results across sessions, newest first (ties by result id), a page at a time',
        parameters: [
          ...resultFilterParams,
          ...pageParams,
        ],
        responses: {
          200: {
            description: 'results with their Metric; a full page has a `Link: <…>; rel="next"` header',
            headers: { Link: { schema: { type: 'string' } } },
            content: json({ type: 'array', items: ref('StoredMetricResult') }),
          },
          400: error('a bad or unknown query parameter (named), or a metric neither registered nor stored'),
          ...common,
        },
      },
    },
    '/results/summary': {
      get: {
        operationId: 'summarizeResults',
        summary: 'figures of the stored results the filters keep, one row per Metric and level measured (by Metric id, then level in ontology order)',
        parameters: resultFilterParams,
        responses: {
          200: { description: 'the rows; none when no result matches', content: json({ type: 'array', items: ref('ResultSummary') }) },
          400: error('a bad or unknown query parameter (named; limit and offset included), or a metric neither registered nor stored'),
          ...common,
        },
      },
    },
  },
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Session: SESSION_SCHEMA,
      Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
      ComputationStatus: computationStatus,
      UnknownFieldWarning: {
        type: 'object',
        description:
          'Fields of the body the session format does not define, ignored: one warning per place (the same field of many calls is one ' +
          `warning with a count); past ${MAX_UNKNOWN_FIELD_PLACES} places, one last warning without a path counts the rest.`,
        required: ['code', 'message', 'count'],
        additionalProperties: false,
        properties: {
          code: { const: 'unknown-field' },
          message: { type: 'string', description: 'e.g. `sessions[0].llmCalls[3].startTme: unknown field, ignored (did you mean "startTime"?)`' },
          path: { type: 'string', description: 'JSON path of the first such field in the body' },
          line: { type: 'integer', minimum: 1, description: "line of the first such field's name in the body (1-based)" },
          column: { type: 'integer', minimum: 1, description: "column of the first such field's name in the body (1-based, in UTF-16 code units)" },
          count: { type: 'integer', minimum: 1, description: 'how many fields the warning stands for' },
          suggestion: { type: 'string', description: 'a defined field whose name is close (a likely typo)' },
        },
      },
      ComputeRequest: {
        type: 'object',
        additionalProperties: false,
        properties: {
          metrics: {
            description: 'names computed at every level they support, or names per ontology level',
            oneOf: [
              { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
              {
                type: 'object',
                propertyNames: { enum: [...ONTOLOGY_LEVELS] },
                additionalProperties: { type: 'array', items: { type: 'string', minLength: 1 } },
              },
            ],
          },
          runId: { type: 'string', minLength: 1, maxLength: 200, description: 'a run id used before makes this run overwrite its results' },
          recursive: { type: 'boolean', description: 'false: only the Session-level metrics (default true)' },
        },
      },
      SessionSummary: {
        type: 'object',
        required: ['id', 'startTime', 'endTime', 'counts'],
        properties: {
          id: { type: 'string' },
          startTime: { type: 'number' },
          endTime: { type: 'number' },
          serviceName: { type: 'string' },
          appName: { type: 'string' },
          counts: {
            type: 'object',
            required: ['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls', 'mcpServers'],
            properties: Object.fromEntries(['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls', 'mcpServers'].map((k) => [k, { type: 'integer', minimum: 0 }])),
          },
        },
      },
      MetricMetadata: {
        type: 'object',
        required: ['name', 'provider', 'levels', 'nature', 'unit', 'valueRange', 'description', 'requirements', 'dependsOn'],
        properties: {
          name: { type: 'string' },
          provider: { type: 'string' },
          levels: { type: 'array', items: { enum: [...ONTOLOGY_LEVELS] } },
          nature: { enum: ['deterministic', 'llm-judged', 'aggregate'] },
          unit: { type: 'string' },
          valueRange: { type: 'string' },
          description: { type: 'string' },
          requirements: strings,
          dependsOn: strings,
          options: strings,
        },
      },
      StoredMetricResult: {
        type: 'object',
        description: 'a stored result and its Metric; `result.sessionId` is its session, `result.measures` what it measures',
        required: ['result', 'metric'],
        additionalProperties: false,
        properties: { result: ref('MetricResult'), metric: ref('Metric') },
      },
      ResultSummary: {
        type: 'object',
        description:
          'the results of one Metric at one level; percentiles are nearest-rank: of n values in ascending order, the value of rank ' +
          'ceil(p·n/100), i.e. the smallest value such that at least p% of the values are at most it (always one of the values)',
        required: ['metric', 'level', 'count', 'mean', 'min', 'max', 'p50', 'p90', 'p95', 'sessions', 'first', 'last'],
        additionalProperties: false,
        properties: {
          metric: ref('Metric'),
          level: { enum: [...ONTOLOGY_LEVELS], description: 'the ontology class the results measure' },
          count: { type: 'integer', minimum: 1 },
          mean: { type: 'number' }, min: { type: 'number' }, max: { type: 'number' },
          p50: { type: 'number' }, p90: { type: 'number' }, p95: { type: 'number' },
          sessions: { type: 'integer', minimum: 1, description: 'distinct sessions among the results' },
          first: { type: 'string', format: 'date-time', description: 'the earliest result timestamp' },
          last: { type: 'string', format: 'date-time', description: 'the latest result timestamp' },
        },
      },
      MetricResult: {
        type: 'object',
        description: 'the ontology MetricResult',
        required: [
          'id', 'name', 'result', 'reasoning', 'evaluationModel', 'evaluationPromptTokenCount', 'evaluationCompletionTokenCount',
          'evaluationTotalTokenCount', 'evaluationCost', 'timestamp', 'ofMetricType', 'measures', 'sessionId',
        ],
        additionalProperties: false,
        properties: {
          id: { type: 'string' }, name: { type: 'string' }, result: { type: 'number' }, reasoning: { type: 'string' }, evaluationModel: { type: ['string', 'null'] },
          evaluationPromptTokenCount: { type: 'integer', minimum: 0 }, evaluationCompletionTokenCount: { type: 'integer', minimum: 0 },
          evaluationTotalTokenCount: { type: 'integer', minimum: 0 }, evaluationCost: { type: 'number', minimum: 0 },
          timestamp: { type: 'string', format: 'date-time' },
          ofMetricType: { type: 'string', description: 'the id of its Metric' },
          measures: {
            type: 'object',
            description: 'what it measures: the session (level `Session`, its id) or a call of it (its class and span id)',
            required: ['level', 'id'],
            additionalProperties: false,
            properties: { level: { enum: [...ONTOLOGY_LEVELS] }, id: { type: 'string' } },
          },
          sessionId: { type: 'string' },
          details: { type: 'object' },
        },
      },
      Metric: {
        type: 'object',
        description: 'the ontology Metric a result is of (id `provider:name`)',
        required: ['id', 'name', 'computedBy', 'unit', 'valueRange'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' }, name: { type: 'string' }, computedBy: { type: 'string' }, unit: { type: 'string' }, valueRange: { type: 'string' },
          description: { type: 'string' },
        },
      },
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
