/**
 * The zod schemas of the REST API's bodies, each registered under the name its OpenAPI component has. The ontology's
 * own (MetricResult, Metric) come from core; the session format is core's published JSON Schema (see document.ts).
 */
import { z } from '@hono/zod-openapi';
import { MAX_UNKNOWN_FIELD_PLACES, MetricDefinitionSchema, MetricResultSchema, ONTOLOGY_LEVELS } from '@mce/core';
import { FAILURES_KEPT } from './computations.js';

const strings = z.array(z.string());
const count = z.number().int().nonnegative();
const time = z.string().openapi({ format: 'date-time' });

export const ErrorSchema = z.object({ error: z.string() }).openapi('Error');

/** A reference to core's session JSON Schema, registered as the `Session` component by document.ts. */
export const SESSION_REF = { $ref: '#/components/schemas/Session' } as const;

export const FailedRecordSchema = z.object({ name: z.string(), level: z.string(), measures: z.string(), error: z.string(), transient: z.literal(true).optional() });
const SkippedRecordSchema = z.object({ name: z.string(), level: z.string(), measures: z.string(), reason: z.string() });

export const ResultRecordSchema = z
  .object({
    id: z.string(), name: z.string(), provider: z.string(), level: z.string(), measures: z.string(),
    result: z.number(), unit: z.string(), reasoning: z.string(), evaluationModel: z.string().nullable(),
    evaluationPromptTokenCount: z.number().int(), evaluationCompletionTokenCount: z.number().int(), evaluationTotalTokenCount: z.number().int(),
    evaluationCost: z.number(), timestamp: time, details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('ResultRecord');

/** The one warning of a computation that priced LLM calls like gpt-4o (price-fallback.ts). */
const PriceWarningsSchema = z
  .array(
    z.strictObject({
      code: z.literal('price-fallback'),
      message: z.string(),
      models: z.record(z.string(), z.number().int().min(1)).openapi({ description: 'model → LLM calls priced like gpt-4o' }),
    }),
  )
  .openapi({ description: 'present when LLM calls were priced like gpt-4o (no price for their model, no cost recorded on their span): their Cost is an estimate' });

export const SessionComputationSchema = z.object({
  sessionId: z.string(),
  results: z.array(ResultRecordSchema),
  failed: z.array(FailedRecordSchema),
  skipped: z.array(SkippedRecordSchema),
  warnings: PriceWarningsSchema.optional(),
});

/** What a succeeded asynchronous computation made (its results are in the store, at `resultsUrl`). */
const ComputationSummarySchema = z.strictObject({
  results: count.openapi({ description: 'results stored' }),
  failed: count.openapi({ description: 'metrics that failed (never stored)' }),
  skipped: count,
  failures: z.array(FailedRecordSchema).max(FAILURES_KEPT).openapi({ description: `the first ${FAILURES_KEPT} failures` }),
  resultsUrl: z.string().openapi({ description: 'GET /results of the session over the run: its stored results, paged' }),
  warnings: PriceWarningsSchema.optional(),
});

const submitted = { id: z.string(), sessionId: z.string(), submittedAt: time };
const started = { ...submitted, startedAt: time };
const finished = { ...started, finishedAt: time };

export const ComputationStatusSchema = z
  .discriminatedUnion('status', [
    z.strictObject({ ...submitted, status: z.literal('queued') }),
    z.strictObject({ ...started, status: z.literal('running') }),
    z.strictObject({ ...finished, status: z.literal('succeeded'), summary: ComputationSummarySchema }),
    z.strictObject({ ...finished, status: z.literal('failed'), error: z.string() }),
  ])
  .openapi('ComputationStatus', {
    description: "an asynchronous computation (kept in the server's memory: lost when it restarts; the results it stored are not)",
  });

export const UnknownFieldWarningSchema = z
  .strictObject({
    code: z.literal('unknown-field'),
    message: z.string().openapi({ description: 'e.g. `sessions[0].llmCalls[3].startTme: unknown field, ignored (did you mean "startTime"?)`' }),
    path: z.string().optional().openapi({ description: 'JSON path of the first such field in the body' }),
    line: z.number().int().min(1).optional().openapi({ description: "line of the first such field's name in the body (1-based)" }),
    column: z.number().int().min(1).optional().openapi({ description: "column of the first such field's name in the body (1-based, in UTF-16 code units)" }),
    count: z.number().int().min(1).openapi({ description: 'how many fields the warning stands for' }),
    suggestion: z.string().optional().openapi({ description: 'a defined field whose name is close (a likely typo)' }),
  })
  .openapi('UnknownFieldWarning', {
    description:
      'Fields of the body the session format does not define, ignored: one warning per place (the same field of many calls is one ' +
      `warning with a count); past ${MAX_UNKNOWN_FIELD_PLACES} places, one last warning without a path counts the rest.`,
  });

export const StoredSessionsSchema = z.object({ sessionIds: strings, warnings: z.array(UnknownFieldWarningSchema) });

/** The optional body of `POST /sessions/{id}/compute`. */
export const ComputeRequestSchema = z
  .strictObject({
    metrics: z
      .union([z.array(z.string().min(1)).min(1), z.partialRecord(z.enum(ONTOLOGY_LEVELS), z.array(z.string().min(1)))])
      .optional()
      .openapi({ description: 'names computed at every level they support, or names per ontology level' }),
    runId: z.string().min(1).max(200).optional().openapi({ description: 'a run id used before makes this run overwrite its results' }),
    recursive: z.boolean().optional().openapi({ description: 'false: only the Session-level metrics (default true)' }),
  })
  .openapi('ComputeRequest');

const callCounts = ['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls', 'mcpServers'] as const;
export const SessionSummarySchema = z
  .object({
    id: z.string(),
    startTime: z.number(),
    endTime: z.number(),
    serviceName: z.string().optional(),
    appName: z.string().optional(),
    counts: z.object(Object.fromEntries(callCounts.map((k) => [k, count])) as Record<(typeof callCounts)[number], typeof count>),
  })
  .openapi('SessionSummary');

export const MetricMetadataSchema = z
  .object({
    name: z.string(),
    provider: z.string(),
    levels: z.array(z.enum(ONTOLOGY_LEVELS)).readonly(),
    nature: z.enum(['deterministic', 'llm-judged', 'aggregate']),
    unit: z.string(),
    valueRange: z.string(),
    description: z.string(),
    requirements: strings.readonly(),
    dependsOn: strings.readonly(),
    options: strings.readonly().optional(),
  })
  .openapi('MetricMetadata');

// Core's schemas, re-wrapped here: `.openapi()` is on the schemas made by this module's zod import.
const MetricSchema = z.object(MetricDefinitionSchema.shape).openapi('Metric', { description: 'the ontology Metric a result is of (id `provider:name`)' });
const MetricResultComponent = z.object(MetricResultSchema.shape).openapi('MetricResult', { description: 'the ontology MetricResult' });

export const StoredMetricResultSchema = z
  .strictObject({ result: MetricResultComponent, metric: MetricSchema })
  .openapi('StoredMetricResult', { description: 'a stored result and its Metric; `result.sessionId` is its session, `result.measures` what it measures' });

export const ResultSummarySchema = z
  .strictObject({
    metric: MetricSchema,
    level: z.enum(ONTOLOGY_LEVELS).openapi({ description: 'the ontology class the results measure' }),
    count: z.number().int().min(1),
    mean: z.number(), min: z.number(), max: z.number(),
    p50: z.number(), p90: z.number(), p95: z.number(),
    sessions: z.number().int().min(1).openapi({ description: 'distinct sessions among the results' }),
    first: time.openapi({ description: 'the earliest result timestamp' }),
    last: time.openapi({ description: 'the latest result timestamp' }),
  })
  .openapi('ResultSummary', {
    description:
      'the results of one Metric at one level; percentiles are nearest-rank: of n values in ascending order, the value of rank ' +
      'ceil(p·n/100), i.e. the smallest value such that at least p% of the values are at most it (always one of the values)',
  });
