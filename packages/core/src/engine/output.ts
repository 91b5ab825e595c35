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

import type { MetricResult } from '../ontology/metric-result.js';
import { metricDefinitionId } from '../ontology/metric-result.js';

/** The ontology MetricResult written to the knowledge graph for a result record. */
export function toMetricResult(record: ResultRecord, sessionId: string): MetricResult {
  const { provider, level, measures, unit: _unit, details, ...fields } = record;
  return {
    ...fields,
    ofMetricType: metricDefinitionId(provider, record.name),
    measures: { level, id: measures },
    sessionId,
    ...(details ? { details } : {}),
  };
}

/** Back from the knowledge graph: a stored MetricResult with its Metric's provider and unit. */
export function toResultRecord(result: MetricResult, metric: { computedBy: string; unit: string }): ResultRecord {
  const { ofMetricType: _m, measures, sessionId: _s, details, ...fields } = result;
  return {
    ...fields,
    provider: metric.computedBy,
    level: measures.level,
    measures: measures.id,
    unit: metric.unit,
    ...(details ? { details } : {}),
  };
}
