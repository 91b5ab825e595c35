/** A metric's `threshold`: the result says whether it reached it (`success`), as the MCP metrics do. */
import type { MetricValue } from '@mce/core';

export function withThreshold(outcome: MetricValue, threshold: unknown): MetricValue {
  if (typeof threshold !== 'number') return outcome;
  return { ...outcome, details: { ...outcome.details, threshold, success: outcome.value >= threshold } };
}
