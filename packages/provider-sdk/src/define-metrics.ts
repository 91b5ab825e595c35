/**
 * The metrics of an `sdk_metrics:` list: each entry checked (its fields, then its expression at its levels), every
 * problem named with the entry's index and name and the field at fault, all problems reported at once.
 */
import { MceError, type Metric } from '@mce/core';
import type { z } from 'zod';
import type { JudgeSource } from '@mce/provider-native';
import { SdkMetricSchema, type SdkMetricConfig } from './config-schema.js';
import { ExpressionError } from './expression/ast.js';
import { expressionSdkMetric } from './expression-metric.js';
import { judgedSdkMetric } from './judged/judged-metric.js';

export const SDK_SECTION = 'sdk_metrics';

export interface SdkConfigProblem {
  /** Path in the configuration file: `['sdk_metrics', 1, 'expression']`. */
  path: (string | number)[];
  message: string;
}

/** A bad `sdk_metrics:` list; mce's configuration loader reports each problem at its file and line. */
export class SdkConfigError extends MceError {
  readonly kind = 'bad-input' as const;
  constructor(readonly problems: SdkConfigProblem[]) {
    super(`invalid ${SDK_SECTION}:\n${problems.map((p) => `  ${p.path.join('.')}: ${p.message}`).join('\n')}`);
    this.name = 'SdkConfigError';
  }
}

const entryName = (entry: unknown): string | undefined => {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
};

/** zod's issues as problems at their fields (an unknown field at the field itself). */
function schemaProblems(error: z.ZodError, index: number, label: string): SdkConfigProblem[] {
  return error.issues.flatMap((issue) => {
    const at = [SDK_SECTION, index, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    if (issue.code === 'unrecognized_keys') {
      // The rubric's keys are scores, not fields.
      const what = issue.path.at(-1) === 'rubric' ? (key: string) => `rubric keys are the scores 1 to 5, not ${key}` : (key: string) => `unknown field "${key}"`;
      return issue.keys.map((key) => ({ path: [...at, key], message: `${label}${what(key)}` }));
    }
    return [{ path: at, message: `${label}${issue.message}` }];
  });
}

function metricOf(config: SdkMetricConfig, judge: JudgeSource | undefined): Metric {
  return config.kind === 'judged' ? judgedSdkMetric(config, judge) : expressionSdkMetric(config);
}

/** The metrics the entries declare; throws SdkConfigError listing every problem. `judge`: another judge (tests). */
export function defineSdkMetrics(entries: unknown, judge?: JudgeSource): Metric[] {
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) throw new SdkConfigError([{ path: [SDK_SECTION], message: 'must be a list of metric definitions' }]);
  const problems: SdkConfigProblem[] = [];
  const metrics: Metric[] = [];
  const firstIndex = new Map<string, number>();
  entries.forEach((entry: unknown, index) => {
    const name = entryName(entry);
    const label = name ? `${name}: ` : '';
    const parsed = SdkMetricSchema.safeParse(entry);
    if (!parsed.success) {
      problems.push(...schemaProblems(parsed.error, index, label));
      return;
    }
    const config = parsed.data;
    const earlier = firstIndex.get(config.name);
    if (earlier !== undefined) {
      problems.push({ path: [SDK_SECTION, index, 'name'], message: `${config.name} is declared at ${SDK_SECTION}.${earlier} already` });
      return;
    }
    firstIndex.set(config.name, index);
    try {
      metrics.push(metricOf(config, judge));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push({ path: [SDK_SECTION, index, 'expression'], message: `${label}${error.message}` });
    }
  });
  if (problems.length > 0) throw new SdkConfigError(problems);
  return metrics;
}
