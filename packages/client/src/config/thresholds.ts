/**
 * The `thresholds:` section of mce_config.yaml: what `mce check` requires of the results, per level and metric.
 * The JSON Schema checks the shape; what it cannot say (a bound given, min ≤ max) is checked here, at its line.
 */
import { ONTOLOGY_LEVELS, type OntologyLevel } from '@mce/core';

export const THRESHOLD_AGGREGATES = ['each', 'mean', 'p95'] as const;
export type ThresholdAggregate = (typeof THRESHOLD_AGGREGATES)[number];

export interface Threshold {
  level: OntologyLevel;
  /** The metric name as written (`provider:name` for a plugin's metric). */
  metric: string;
  min?: number;
  max?: number;
  per: ThresholdAggregate;
  /** Where the file wrote it: `thresholds.Level.Metric` and its line. */
  field: string;
  line?: number;
}

type Problem = { line?: number; field: string; message: string };

/** The thresholds of a validated config's raw `thresholds:` mapping, with the problems the schema cannot see. */
export function readThresholds(
  raw: unknown,
  keyLineOf: (path: readonly (string | number)[], key: string) => number | undefined,
): { thresholds: Threshold[]; problems: Problem[] } {
  const thresholds: Threshold[] = [];
  const problems: Problem[] = [];
  const byLevel = (raw ?? {}) as Partial<Record<OntologyLevel, Record<string, { min?: number; max?: number; per?: ThresholdAggregate } | null>>>;
  for (const level of ONTOLOGY_LEVELS) {
    for (const [metric, bounds] of Object.entries(byLevel[level] ?? {})) {
      const field = `thresholds.${level}.${metric}`;
      const line = keyLineOf(['thresholds', level], metric);
      const { min, max, per = 'each' } = bounds ?? {};
      if (min === undefined && max === undefined) problems.push({ line, field, message: 'give min, max or both' });
      else if (min !== undefined && max !== undefined && min > max) problems.push({ line, field, message: `min ${min} is above max ${max}: nothing could pass` });
      thresholds.push({ level, metric, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}), per, field, ...(line !== undefined ? { line } : {}) });
    }
  }
  return { thresholds, problems };
}
