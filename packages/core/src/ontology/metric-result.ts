import type { OntologyLevel } from './types.js';

/**
 * The ontology's `Metric`: one definition per metric name and provider (seed 003).
 * `id` is `${computedBy}:${name}`, the key `ofMetricType` points at.
 */
export interface MetricDefinition {
  id: string;
  name: string;
  /** Provider that computes it: `mce`, `deepeval`, … */
  computedBy: string;
  unit: string;
  valueRange: string;
  description?: string;
}

/**
 * The ontology's `MetricResult`: one observation, with exactly the seed's field names, plus its two relations
 * (`ofMetricType` → Metric id, `measures` → the Session id or call span id and that element's class).
 */
export interface MetricResult {
  id: string;
  name: string;
  result: number;
  reasoning: string;
  /** The judge model; null for a metric that makes no LLM call. */
  evaluationModel: string | null;
  evaluationPromptTokenCount: number;
  evaluationCompletionTokenCount: number;
  evaluationTotalTokenCount: number;
  /** USD estimate. */
  evaluationCost: number;
  /** ISO-8601 time of computation. */
  timestamp: string;
  /** Relation: the `MetricDefinition.id`. */
  ofMetricType: string;
  /** Relation: what was measured. */
  measures: { level: OntologyLevel; id: string };
  /** The session the measured element belongs to (for reading results back by session). */
  sessionId: string;
  /** Not in the ontology: metric-specific detail (sub-scores, how a judge value was obtained, …). */
  details?: Record<string, unknown>;
}

/** Usage of the LLM calls a metric made; deterministic metrics have none. */
export interface EvaluationUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd: number;
}

export function metricDefinitionId(provider: string, name: string): string {
  return `${provider}:${name}`;
}
