import { ONTOLOGY_LEVELS, type OntologyLevel } from '@mce/core';
import type { NativeMetric } from './define.js';
import { Duration } from './duration.js';
import { CompletionTokens, PromptTokens, TotalTokens } from './tokens.js';
import { Cost } from './cost.js';
import { AgentCallCount, LLMCallCount, ToolCallCount } from './call-counts.js';
import { LLMErrorRate, ToolErrorRate } from './error-rates.js';
import { CyclesCount } from './cycles.js';
import { AgentToAgentInteractions, AgentToToolInteractions, WorkflowEfficiency } from './interactions.js';
import { MeanLLMCallDuration, MeanToolCallDuration, P95LLMCallDuration } from './call-duration-aggregates.js';

/** Every deterministic native metric (aggregates included), dependencies before the metrics derived from them. */
export const DETERMINISTIC_METRICS: readonly NativeMetric[] = Object.freeze([
  Duration,
  PromptTokens,
  CompletionTokens,
  TotalTokens,
  Cost,
  LLMCallCount,
  ToolCallCount,
  AgentCallCount,
  ToolErrorRate,
  LLMErrorRate,
  CyclesCount,
  AgentToAgentInteractions,
  AgentToToolInteractions,
  WorkflowEfficiency,
  MeanLLMCallDuration,
  P95LLMCallDuration,
  MeanToolCallDuration,
]);

/**
 * The default metric set: per ontology level, the name of every deterministic metric defined at that level
 * (in catalog order), shaped like core's `MetricSelection`. A fresh object on each call, so callers may edit it.
 */
export function defaultMetricSelection(): Record<OntologyLevel, string[]> {
  const selection = Object.fromEntries(ONTOLOGY_LEVELS.map((level) => [level, [] as string[]])) as Record<
    OntologyLevel,
    string[]
  >;
  for (const metric of DETERMINISTIC_METRICS) {
    for (const level of metric.metadata.levels) selection[level].push(metric.metadata.name);
  }
  return selection;
}
