import type { CallLevel, MetricContext, MetricOutcome, Session } from '@mce/core';
import { skip } from '@mce/core';
import { fmt, nativeMetric, type NativeMetric } from './define.js';

/** Mean of a non-empty list. */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
}

/** Nearest-rank percentile of a non-empty list: the smallest value with at least p % of the values ≤ it. */
export function nearestRankPercentile(values: readonly number[], p: number): number {
  const sorted = Float64Array.from(values).sort(); // numeric order, no comparator calls
  // p·n / 100 rather than (p / 100)·n: for p = 99.9, n = 1000 the latter is 999.0000000000001, whose ceiling is 1000.
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1]!;
}

/** The Duration results of the session's calls at `level`; throws when calls exist but none has a Duration result. */
function callDurations(ctx: MetricContext, level: 'LLMCall' | 'ToolCall'): number[] | undefined {
  const calls = level === 'LLMCall' ? ctx.session.llmCalls : ctx.session.toolCalls;
  if (calls.length === 0) return undefined;
  // valuesAt, when the lookup has it, reads the values without building a MetricResult per call.
  const durations = ctx.results.valuesAt?.('Duration', level) ?? durationsFromAll(ctx, level);
  if (durations.length === 0) {
    // Failed Durations are not results: each failed for a reason of its own, reported beside this one.
    throw new Error(
      `no Duration result for any of the session's ${calls.length} ${level}(s): Duration failed for each of them (see their ` +
        `errors), or was not computed at ${level}`,
    );
  }
  return durations;
}

function durationsFromAll(ctx: MetricContext, level: 'LLMCall' | 'ToolCall'): number[] {
  const durations: number[] = [];
  for (const result of ctx.results.all('Duration')) {
    if (result.measures.level === level) durations.push(result.result);
  }
  return durations;
}

function callDurationAggregate(
  name: string,
  level: Extract<CallLevel, 'LLMCall' | 'ToolCall'>,
  statistic: string,
  reduce: (values: readonly number[]) => number,
  description: string,
  method?: string,
): NativeMetric {
  const what = level === 'LLMCall' ? 'LLM calls' : 'tool calls';
  return nativeMetric(
    name,
    {
      levels: ['Session'],
      nature: 'aggregate',
      unit: 'ms',
      valueRange: 'non-negative number',
      description,
      requirements: [`Duration at ${level}`],
      dependsOn: ['Duration'],
    },
    (_element, ctx): MetricOutcome => {
      const durations = callDurations(ctx, level);
      if (!durations) return skip(`the session has no ${what}`);
      const total = (ctx.session as Session)[level === 'LLMCall' ? 'llmCalls' : 'toolCalls'].length;
      const missing = total - durations.length;
      // Over the calls that have one, the statistic would be stored as the session's while it is not: a failure.
      if (missing > 0) {
        throw new Error(`Duration failed for ${missing} of the session's ${total} ${what} (see their errors): the ${statistic.toLowerCase()} of the others is not the session's`);
      }
      const value = reduce(durations);
      return {
        value,
        reasoning: `${statistic} of the Duration of ${durations.length} ${what}: ${fmt(value)} ms.`,
        details: { calls: durations.length, ...(method ? { method } : {}) },
      };
    },
  );
}

export const MeanLLMCallDuration = callDurationAggregate(
  'MeanLLMCallDuration',
  'LLMCall',
  'Mean',
  mean,
  'Mean Duration (ms) of the session\'s LLM calls, read from their Duration results (not recomputed). Skipped when ' +
    'the session has no LLM call; fails when one of them has no Duration result.',
);

export const P95LLMCallDuration = callDurationAggregate(
  'P95LLMCallDuration',
  'LLMCall',
  '95th percentile (nearest rank)',
  (values) => nearestRankPercentile(values, 95),
  '95th percentile of the Duration (ms) of the session\'s LLM calls, by the nearest-rank method: the value at rank ' +
    '⌈0.95·n⌉ of the n durations sorted ascending (no interpolation). Read from the Duration results. Skipped when ' +
    'the session has no LLM call; fails when one of them has no Duration result.',
  'nearest-rank',
);

export const MeanToolCallDuration = callDurationAggregate(
  'MeanToolCallDuration',
  'ToolCall',
  'Mean',
  mean,
  'Mean Duration (ms) of the session\'s tool calls, read from their Duration results (not recomputed). Skipped when ' +
    'the session has no tool call; fails when one of them has no Duration result.',
);
