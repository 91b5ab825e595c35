/**
 * An LLM-judged metric: a written 1–5 rubric, a versioned prompt built from the element, one judge call (or N
 * samples) per computation, and a record/replay key over everything that determines the result.
 */
import { createHash } from 'node:crypto';
import {
  JUDGED_OPTION_NAMES,
  skip,
  stableJson,
  type Element,
  type Metric,
  type MetricContext,
  type MetricMetadata,
  type MetricOutcome,
  type MetricSpec,
  type OntologyLevel,
} from '@mce/core';
import type { Judge } from '../../judge/judge.js';
import { judgeTemperature } from '../../judge/config.js';
import { NATIVE_MODULE, NATIVE_PROVIDER } from '../deterministic/define.js';
import type { JudgedElement } from './inputs.js';

/** A metric's entry in a core spec catalog (`LLM_JUDGED_SPECS`, `MCP_SPECS`): the one source of its metadata. */
export function coreSpec(specs: readonly MetricSpec[], name: string): MetricSpec {
  const found = specs.find((s) => s.name === name);
  if (!found) throw new Error(`no core spec for ${name}`);
  return found;
}

/** Metadata shared by every LLM-judged metric (scores in [0, 1], no dependencies); the provider is mce's unless given. */
export function judgedMetadata(definition: {
  name: string;
  provider?: string;
  levels: MetricMetadata['levels'];
  description: string;
  requirements: MetricMetadata['requirements'];
}, options: readonly string[] = JUDGED_OPTION_NAMES): MetricMetadata {
  return Object.freeze({
    name: definition.name,
    provider: definition.provider ?? NATIVE_PROVIDER,
    levels: definition.levels,
    nature: 'llm-judged',
    unit: 'dimensionless',
    valueRange: '0.0-1.0',
    description: definition.description,
    requirements: definition.requirements,
    dependsOn: [],
    options,
  });
}


export interface JudgedMetricDefinition {
  name: string;
  /** The provider the metric belongs to (its results' `computedBy`, its cache keys); default mce's own. */
  provider?: string;
  /** The options it reads; default `model` only. */
  options?: readonly string[];
  levels: readonly OntologyLevel[];
  description: string;
  requirements: readonly string[];
  /** Bumped whenever the rubric or the prompt layout changes: cached results of older versions are not replayed. */
  promptVersion: number;
  /** The written 1–5 rubric. */
  rubric: string;
  /** The user message for the judge; throws MissingJudgeInputError when an input is missing. */
  prompt(target: JudgedElement, budget: number): string;
  /** Why the metric does not apply to this element (reported as skipped, no judge call); undefined when it does. */
  notApplicable?(target: JudgedElement): string | undefined;
}

export type JudgeSource = Judge | (() => Judge);

/** A metric scored by the judge against a written rubric: its rubric, prompt version and exact prompt per element. */
export interface RubricJudgedMetric extends Metric {
  readonly rubric: string;
  readonly promptVersion: number;
  /** The exact judge prompt for an element (what the cache key hashes). */
  promptFor(element: Element, ctx: MetricContext): string;
}

/** A native judged metric also says how to load it off the main thread (same shape as the deterministic ones). */
export interface JudgedMetric extends RubricJudgedMetric {
  readonly portable: { module: string; exportName: string };
}

/** Re-exported: it moved to core, where ingestion uses it too. */
export { stableJson };

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The judge settings that change a result, for cache keys: the endpoint (one model name may be served by several),
 * sampling, log-probabilities and the completion budget.
 */
export function judgeSettings(judge: Judge): Record<string, unknown> {
  const { samples, logprobs, topLogprobs, maxTokens, temperature } = judge.config;
  return { endpoint: judge.endpoint, samples, temperature: judgeTemperature(samples, temperature), logprobs, topLogprobs, maxTokens };
}

/** Hash of the metric options and the judge settings that change a result (memoised: one options object per run). */
const optionHashes = new WeakMap<Judge, WeakMap<object, string>>();
function optionsHash(judge: Judge, options: Readonly<Record<string, unknown>>): string {
  let byOptions = optionHashes.get(judge);
  if (!byOptions) optionHashes.set(judge, (byOptions = new WeakMap()));
  let hash = byOptions.get(options);
  if (hash === undefined) {
    hash = sha256(stableJson({ options, judge: judgeSettings(judge) })).slice(0, 16);
    byOptions.set(options, hash);
  }
  return hash;
}

/** A native LLM-judged metric: mce's provider, loadable off the main thread from the native module. */
export function judgedMetric(definition: JudgedMetricDefinition, source: JudgeSource): JudgedMetric {
  return Object.freeze({
    ...rubricJudgedMetric({ ...definition, provider: NATIVE_PROVIDER }, source),
    portable: Object.freeze({ module: NATIVE_MODULE, exportName: definition.name }),
  });
}

/**
 * A metric of any provider scored by mce's judge: 1–5 against the definition's rubric, continuous through
 * log-probabilities or samples, a reply without a score a failure, the usage of every call in the evaluation fields.
 */
export function rubricJudgedMetric(definition: JudgedMetricDefinition, source: JudgeSource): RubricJudgedMetric {
  const provider = definition.provider ?? NATIVE_PROVIDER;
  /** How errors name the metric: mce's own by name, another provider's as provider:name. */
  const label = provider === NATIVE_PROVIDER ? definition.name : `${provider}:${definition.name}`;
  const base = typeof source === 'function' ? source : () => source;
  /** The judge for a computation: the metric's `model` option, when given, overrides the judge model. */
  const judgeFor = (ctx: MetricContext): Judge => {
    const model = ctx.options.model;
    return typeof model === 'string' && model.trim() ? base().withModel(model.trim()) : base();
  };
  const metadata = judgedMetadata(definition, definition.options);
  const levels = new Set(definition.levels);
  const prompts = new WeakMap<object, string>();

  const promptFor = (element: Element, ctx: MetricContext): string => {
    if (!levels.has(ctx.level)) throw new Error(`${label} is not defined at the ${ctx.level} level`);
    const cached = prompts.get(element);
    if (cached !== undefined) return cached;
    const prompt = definition.prompt({ level: ctx.level, element, session: ctx.session }, judgeFor(ctx).config.transcriptTokens);
    prompts.set(element, prompt);
    return prompt;
  };

  return Object.freeze({
    metadata,
    rubric: definition.rubric,
    promptVersion: definition.promptVersion,
    promptFor,

    cacheKey(element: Element, ctx: MetricContext): string | undefined {
      const j = judgeFor(ctx);
      if (!j.model) return undefined;
      if (definition.notApplicable?.({ level: ctx.level, element, session: ctx.session })) return undefined;
      let prompt: string;
      try {
        prompt = promptFor(element, ctx);
      } catch {
        return undefined; // compute() reports the missing input
      }
      const inputs = sha256(stableJson({ rubric: definition.rubric, prompt, level: ctx.level }));
      const options = optionsHash(j, ctx.options);
      return `${provider}|${definition.name}|v${definition.promptVersion}|${j.model}|opts:${options}|in:${inputs}`;
    },

    async compute(element: Element, ctx: MetricContext): Promise<MetricOutcome> {
      const reason = definition.notApplicable?.({ level: ctx.level, element, session: ctx.session });
      if (reason) return skip(reason);
      const j = judgeFor(ctx);
      j.requireModel(label);
      const prompt = promptFor(element, ctx);
      const result = await j.score({
        metric: label,
        rubric: definition.rubric,
        prompt,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return {
        value: result.value,
        reasoning: result.reasoning,
        details: {
          score: result.score,
          scoring: result.scoring,
          promptVersion: definition.promptVersion,
          ...(result.samples.length > 1 ? { sampleScores: result.samples.map((s) => s.score) } : {}),
          // The endpoint reported no token usage: the evaluation fields count 0, which is not what the call cost.
          ...(result.usageReported ? {} : { usageReported: false }),
        },
        evaluation: result.usage,
      };
    },
  });
}
