import type { OntologyLevel } from '../ontology/types.js';

/**
 * One successful observation as printed by `--json` and returned by the library: the ontology's MetricResult
 * fields plus provider, level/measures and unit (the stable output shape).
 */
export interface ResultRecord {
  id: string;
  name: string;
  provider: string;
  level: OntologyLevel;
  measures: string;
  result: number;
  unit: string;
  reasoning: string;
  evaluationModel: string | null;
  evaluationPromptTokenCount: number;
  evaluationCompletionTokenCount: number;
  evaluationTotalTokenCount: number;
  evaluationCost: number;
  timestamp: string;
  details?: Record<string, unknown>;
}

export interface FailedRecord {
  name: string;
  level: OntologyLevel;
  measures: string;
  error: string;
  /** Present when a service the metric needed failed (see `isTransientError`): a later attempt may succeed. */
  transient?: true;
}

export interface SkippedRecord {
  name: string;
  level: OntologyLevel;
  measures: string;
  reason: string;
}

export interface SessionComputation {
  sessionId: string;
  results: ResultRecord[];
  failed: FailedRecord[];
  skipped: SkippedRecord[];
}

/** Per computation (or streamed part): the ids its failed and skipped records would have had as results. */
const UNSTORED = new WeakMap<SessionComputation, readonly string[]>();

/**
 * The result ids this computation did not produce: those of its failed and skipped records, as a success would have
 * had them. Result ids derive from the run id, so a re-run of a run id must remove these from a store: a metric that
 * succeeded in an earlier attempt and failed now must not keep its earlier score under this run.
 */
export function unstoredResultIds(computation: SessionComputation): readonly string[] {
  return UNSTORED.get(computation) ?? [];
}

/** Records `ids` as the unstored result ids of a new `computation` (the engine's record builder does). */
export function setUnstoredResultIds(computation: SessionComputation, ids: readonly string[]): void {
  if (ids.length > 0) UNSTORED.set(computation, ids);
}

import type { MetricResult } from '../ontology/metric-result.js';
import { metricDefinitionId } from '../ontology/metric-result.js';

/**
 * The ontology MetricResult written to the knowledge graph for a result record. Fields are spelled out rather than
 * spread: workers and aggregates convert results by the hundred thousand.
 */
export function toMetricResult(
  record: ResultRecord,
  sessionId: string,
  ofMetricType: string = metricDefinitionId(record.provider, record.name),
): MetricResult {
  const result: MetricResult = {
    id: record.id,
    name: record.name,
    result: record.result,
    reasoning: record.reasoning,
    evaluationModel: record.evaluationModel,
    evaluationPromptTokenCount: record.evaluationPromptTokenCount,
    evaluationCompletionTokenCount: record.evaluationCompletionTokenCount,
    evaluationTotalTokenCount: record.evaluationTotalTokenCount,
    evaluationCost: record.evaluationCost,
    timestamp: record.timestamp,
    ofMetricType,
    measures: { level: record.level, id: record.measures },
    sessionId,
  };
  if (record.details) result.details = record.details;
  return result;
}

/**
 * Back from the knowledge graph: a stored MetricResult with its Metric's provider and unit. One literal in
 * ResultRecord's key order (`details` last, only when present), so a stored record prints like a computed one.
 */
export function toResultRecord(result: MetricResult, metric: { computedBy: string; unit: string }): ResultRecord {
  const record: ResultRecord = {
    id: result.id,
    name: result.name,
    provider: metric.computedBy,
    level: result.measures.level,
    measures: result.measures.id,
    result: result.result,
    unit: metric.unit,
    reasoning: result.reasoning,
    evaluationModel: result.evaluationModel,
    evaluationPromptTokenCount: result.evaluationPromptTokenCount,
    evaluationCompletionTokenCount: result.evaluationCompletionTokenCount,
    evaluationTotalTokenCount: result.evaluationTotalTokenCount,
    evaluationCost: result.evaluationCost,
    timestamp: result.timestamp,
  };
  if (result.details) record.details = result.details;
  return record;
}
