/**
 * A judged sdk metric (G-Eval style): the criteria or evaluation steps and the 1–5 rubric become the judge's rubric,
 * the configured inputs its user message, and mce's judge scores it as it scores the native judged metrics (the
 * expectation over the score's log-probabilities or the mean of samples, normalised to [0, 1], a reply without a
 * score a failure, the usage and cost of every call in the evaluation fields).
 */
import type { Element, Metric, MetricContext, MetricOutcome } from '@mce/core';
import { isSkip } from '@mce/core';
import { defaultJudge, rubricJudgedMetric, type JudgeSource } from '@mce/provider-native';
import type { JudgedMetricConfig } from '../config-schema.js';
import { SDK_PROVIDER } from '../provider-name.js';
import { withThreshold } from '../threshold.js';
import { inputSections } from './inputs.js';

const DEFAULT_ANCHORS: Record<string, string> = {
  5: 'fully meets the criterion',
  4: 'meets it, with minor lapses',
  3: 'partly meets it',
  2: 'barely meets it',
  1: 'does not meet it at all',
};

/** The judge's rubric: the criterion, the steps, then the anchors from 5 down (the configured ones, else the default). */
export function judgedRubric(config: JudgedMetricConfig): string {
  const anchors = config.rubric ?? DEFAULT_ANCHORS;
  const lines: string[] = [];
  if (config.criteria) lines.push(`Criterion: ${config.criteria}`);
  if (config.evaluation_steps) {
    if (lines.length > 0) lines.push('');
    lines.push('Evaluation steps:', ...config.evaluation_steps.map((step, i) => `${i + 1}. ${step}`));
  }
  lines.push('', 'Rubric (scores not listed lie between their neighbours):');
  for (const score of ['5', '4', '3', '2', '1']) {
    const anchor = (anchors as Record<string, string | undefined>)[score];
    if (anchor) lines.push(`${score}: ${anchor}`);
  }
  return lines.join('\n');
}

export function judgedSdkMetric(config: JudgedMetricConfig, judge: JudgeSource = defaultJudge): Metric {
  const id = `${SDK_PROVIDER}:${config.name}`;
  const base = rubricJudgedMetric(
    {
      name: config.name,
      provider: SDK_PROVIDER,
      levels: config.levels,
      description: config.description ?? `Judged: ${config.criteria ?? config.evaluation_steps?.join(' ')}`,
      requirements: config.inputs,
      options: ['model', 'threshold'],
      // The rubric and prompt are the user's: a change of either changes the cache key through their hash.
      promptVersion: 1,
      rubric: judgedRubric(config),
      prompt: (target, budget) => inputSections(id, config.inputs, target, budget),
    },
    judge,
  );
  // The configured model and threshold are the defaults of the options (metric_options may still set them).
  const defaults = { ...(config.model ? { model: config.model } : {}), ...(config.threshold !== undefined ? { threshold: config.threshold } : {}) };
  // One merged object per run's options object: the judge memoises its option hash by object.
  const merged = new WeakMap<object, Readonly<Record<string, unknown>>>();
  const withDefaults = (ctx: MetricContext): MetricContext => {
    let options = merged.get(ctx.options);
    if (!options) merged.set(ctx.options, (options = { ...defaults, ...ctx.options }));
    return { ...ctx, options };
  };
  return Object.freeze({
    metadata: base.metadata,
    cacheKey: (element: Element, ctx: MetricContext) => base.cacheKey?.(element, withDefaults(ctx)),
    async compute(element: Element, ctx: MetricContext): Promise<MetricOutcome> {
      const options = withDefaults(ctx);
      const outcome = await base.compute(element, options);
      return isSkip(outcome) ? outcome : withThreshold(outcome, options.options.threshold);
    },
  });
}
