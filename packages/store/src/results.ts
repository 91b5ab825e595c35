/**
 * Metric results on their way into and out of a store: validation against the ontology (core's
 * `validateMetricResult`) before any write, and the flat row form the SQL adapters use.
 */
import { issueLines, MetricDefinitionSchema, validateMetricResult } from '@mce/core';
import type { MetricDefinition, MetricResult, OntologyLevel, ValidationIssue } from '@mce/core';
import type { RejectedResult, StoredMetricResult, StoreLogger } from './types.js';

export interface ValidatedBatch {
  valid: MetricResult[];
  rejected: RejectedResult[];
}

/** What a store cannot hold of a result that fits the ontology (a column's range, …); empty when it can. */
export type StoreLimits = (result: MetricResult) => ValidationIssue[];

/**
 * Split a batch into the results that fit the ontology and point at a known Metric, and the rejected ones (each
 * logged with its reasons). When a result id repeats in the batch, the last one wins (it is an upsert anyway).
 */
export function validateResults(
  results: readonly MetricResult[],
  knownMetricIds: ReadonlySet<string>,
  logger: StoreLogger,
  limits?: StoreLimits,
): ValidatedBatch {
  const valid = new Map<string, MetricResult>();
  const rejected: RejectedResult[] = [];
  results.forEach((result, index) => {
    const refusal = rejectionOf(result, index, knownMetricIds, logger, limits);
    if (refusal) rejected.push(refusal);
    else valid.set(result.id, result);
  });
  return { valid: [...valid.values()], rejected };
}

/** The `details` JSON of the results `rejectionOf` accepted (the row stage reads it instead of serialising again). */
const detailsJson = new WeakMap<MetricResult, string>();

/** `details` as stored: the JSON made when the result was checked, else made now. */
export function detailsText(result: MetricResult): string | undefined {
  return result.details === undefined ? undefined : (detailsJson.get(result) ?? JSON.stringify(result.details));
}

/** Why one result (at `index` of its batch) cannot be stored, logged; undefined when it can. */
export function rejectionOf(
  result: MetricResult,
  index: number,
  knownMetricIds: ReadonlySet<string>,
  logger: StoreLogger,
  limits?: StoreLimits,
): RejectedResult | undefined {
  const reasons = validateMetricResult(result);
  if (reasons.length === 0 && !knownMetricIds.has(result.ofMetricType)) {
    reasons.push({ path: 'ofMetricType', message: `no Metric definition with id "${result.ofMetricType}"` });
  }
  if (reasons.length === 0 && result.measures.level === 'Session' && result.measures.id !== result.sessionId) {
    reasons.push({ path: 'measures.id', message: `a Session result measures its own session "${result.sessionId}"` });
  }
  if (reasons.length === 0 && limits) reasons.push(...limits(result));
  if (reasons.length === 0 && result.details !== undefined) {
    // Serialised here, once: a value JSON cannot hold (a BigInt, a cycle) is this result's rejection, where it would
    // otherwise fail the whole write at the row stage.
    try {
      detailsJson.set(result, JSON.stringify(result.details));
    } catch (error) {
      reasons.push({ path: 'details', message: `cannot be stored as JSON: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  if (reasons.length === 0) return undefined;
  const id = typeof result?.id === 'string' && result.id !== '' ? result.id : `#${index}`;
  logger.warn({ metricResultId: id, reasons }, 'metric result rejected: it does not fit the ontology');
  return { id, reasons };
}

/**
 * The results whose session is stored (`stored`: the ids found) and a rejection for each of the others, logged: a
 * result is stored only beside its session, so results a computation finishes after its session was deleted are not
 * left behind as orphans.
 */
export function splitByStoredSession(
  results: readonly MetricResult[],
  stored: ReadonlySet<string>,
  logger: StoreLogger,
): { kept: MetricResult[]; rejected: RejectedResult[] } {
  const kept: MetricResult[] = [];
  const rejected: RejectedResult[] = [];
  // One warning per session, not per result: a deleted session may have had thousands.
  const perSession = new Map<string, number>();
  for (const result of results) {
    if (stored.has(result.sessionId)) {
      kept.push(result);
      continue;
    }
    const message = `session "${result.sessionId}" is not stored (deleted while its results were computed?)`;
    perSession.set(result.sessionId, (perSession.get(result.sessionId) ?? 0) + 1);
    rejected.push({ id: result.id, reasons: [{ path: 'sessionId', message }], unstoredSession: result.sessionId });
  }
  for (const [sessionId, count] of perSession) logger.warn({ sessionId, results: count }, 'metric results rejected: their session is not stored');
  return { kept, rejected };
}

/** The distinct session ids of results. */
export const sessionIdsOf = (results: Iterable<MetricResult>): string[] => [...new Set(Array.from(results, (r) => r.sessionId))];

/** The Metric ids the batch refers to that the batch's own definitions do not provide. */
export function missingMetricIds(definitions: readonly MetricDefinition[], results: readonly MetricResult[]): string[] {
  const defined = new Set(definitions.map((d) => d.id));
  const missing = new Set<string>();
  for (const r of results) if (typeof r?.ofMetricType === 'string' && !defined.has(r.ofMetricType)) missing.add(r.ofMetricType);
  return [...missing];
}

export interface ResultRow {
  id: string;
  name: string;
  result: number;
  reasoning: string;
  evaluationModel: string | null;
  evaluationPromptTokenCount: number;
  evaluationCompletionTokenCount: number;
  evaluationTotalTokenCount: number;
  evaluationCost: number;
  timestamp: string;
  /** Epoch ms of `timestamp`, the sort key of "newest first". */
  computedAt: number;
  ofMetricType: string;
  measuresLevel: OntologyLevel;
  measuresId: string;
  sessionId: string;
  details: string | null;
}

let lastTimestamp = '';
let lastEpochMs = 0;

/**
 * `computed_at` of a result, in every store: its timestamp in epoch ms. The results of a task share their timestamp,
 * so the last one parsed is remembered.
 */
export function computedAtOf(timestamp: string): number {
  if (timestamp !== lastTimestamp) {
    lastEpochMs = Date.parse(timestamp);
    lastTimestamp = timestamp;
  }
  return lastEpochMs;
}

export function resultRow(r: MetricResult): ResultRow {
  return {
    id: r.id,
    name: r.name,
    result: r.result,
    reasoning: r.reasoning,
    evaluationModel: r.evaluationModel,
    evaluationPromptTokenCount: r.evaluationPromptTokenCount,
    evaluationCompletionTokenCount: r.evaluationCompletionTokenCount,
    evaluationTotalTokenCount: r.evaluationTotalTokenCount,
    evaluationCost: r.evaluationCost,
    timestamp: r.timestamp,
    computedAt: computedAtOf(r.timestamp),
    ofMetricType: r.ofMetricType,
    measuresLevel: r.measures.level,
    measuresId: r.measures.id,
    sessionId: r.sessionId,
    details: detailsText(r) ?? null,
  };
}

export function resultFromRow(row: Omit<ResultRow, 'computedAt'>): MetricResult {
  const result: MetricResult = {
    id: row.id,
    name: row.name,
    result: row.result,
    reasoning: row.reasoning,
    evaluationModel: row.evaluationModel,
    evaluationPromptTokenCount: row.evaluationPromptTokenCount,
    evaluationCompletionTokenCount: row.evaluationCompletionTokenCount,
    evaluationTotalTokenCount: row.evaluationTotalTokenCount,
    evaluationCost: row.evaluationCost,
    timestamp: row.timestamp,
    ofMetricType: row.ofMetricType,
    measures: { level: row.measuresLevel, id: row.measuresId },
    sessionId: row.sessionId,
  };
  if (row.details !== null) result.details = JSON.parse(row.details) as Record<string, unknown>;
  return result;
}

export interface MetricRow {
  id: string;
  name: string;
  computedBy: string;
  unit: string;
  valueRange: string;
  description: string | null;
}

export function metricFromRow(row: MetricRow): MetricDefinition {
  const metric: MetricDefinition = {
    id: row.id,
    name: row.name,
    computedBy: row.computedBy,
    unit: row.unit,
    valueRange: row.valueRange,
  };
  if (row.description !== null) metric.description = row.description;
  return metric;
}

/** Definitions come from metric metadata (code, not data): one that does not fit is a programming error. */
export function assertDefinitions(definitions: readonly MetricDefinition[]): void {
  for (const definition of definitions) {
    const parsed = MetricDefinitionSchema.safeParse(definition);
    if (!parsed.success) {
      const reasons = issueLines(parsed.error).join('; ');
      throw new Error(`invalid Metric definition ${JSON.stringify(definition?.id)}: ${reasons}`);
    }
  }
}

/** The Metric of a row joined with `metrics m` (its columns prefixed `m_`). */
export function joinedMetric(row: Record<string, unknown>): MetricDefinition {
  return metricFromRow({
    id: row.m_id,
    name: row.m_name,
    computedBy: row.m_computedBy,
    unit: row.m_unit,
    valueRange: row.m_valueRange,
    description: row.m_description,
  } as MetricRow);
}

/** A joined result row (metric columns prefixed `m_`) → the result and its Metric. */
export function storedResult(row: Record<string, unknown>): StoredMetricResult {
  return { result: resultFromRow(row as unknown as ResultRow), metric: joinedMetric(row) };
}
