/**
 * A metric computed by a third-party evaluation library (Ragas, DeepEval, Opik) with mce's judge: the library gets
 * an OpenAI client (or a `fetch`) on the configured endpoint whose every HTTP call is counted and waits for the
 * judge limiter; the result's evaluation fields are the sums of those calls at mce's prices. A library error, a
 * missing input or a score that is not a number is a failed result carrying the usage, never a 0.
 */
import type OpenAI from 'openai';
import {
  isTransientError,
  skip,
  stableJson,
  type Element,
  type Metric,
  type MetricContext,
  type MetricMetadata,
  type MetricOutcome,
  type OntologyLevel,
} from '@mce/core';
import { CallMeter, countingFetch, judgeLimiter, meteredOpenAI } from '../judge/counting-fetch.js';
import type { Judge } from '../judge/judge.js';
import { isRetryable } from '../judge/retry.js';
import { withUsage } from '../judge/usage-meter.js';
import { defaultJudge } from '../metrics/llm/default-judge.js';
import { sha256 } from '../metrics/llm/define.js';
import type { JudgedElement } from '../metrics/llm/inputs.js';
import { answeredWithToolCallsOnly } from '../tool-calls-only.js';

/** What a library's scorer gets for one computation. */
export interface LibraryCall {
  /** An OpenAI client whose calls are counted (for libraries that take one). */
  client: OpenAI;
  /** A counting `fetch` (for libraries that build their own client, e.g. `createOpenAI({ fetch })`). */
  fetch: typeof fetch;
  judge: Judge;
  /** The judge model (the metric's `model` option, else LLM_MODEL_NAME). */
  model: string;
  options: Readonly<Record<string, unknown>>;
  signal?: AbortSignal;
}

export interface LibraryScore {
  value: number;
  reasoning?: string;
  details?: Record<string, unknown>;
}

export interface LibraryMetricDefinition<I> {
  provider: string;
  name: string;
  levels: readonly OntologyLevel[];
  description: string;
  requirements: readonly string[];
  /** The library's scale, as it defines it (`0.0-1.0`, …). */
  valueRange: string;
  options: readonly string[];
  /** The library and its version (part of the cache key: a new version's results are not replayed). */
  library: string;
  /** The library's inputs for an element; throws MissingJudgeInputError when one is missing. */
  inputs(target: JudgedElement, options: Readonly<Record<string, unknown>>): I;
  score(inputs: I, call: LibraryCall): Promise<LibraryScore>;
  notApplicable?(target: JudgedElement): string | undefined;
}

/** A library's error, named with the metric; transient when the endpoint failed after its retries (or the scorer says so). */
function libraryError(metric: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const wrapped = new Error(`${metric}: ${message}`, { cause: error });
  wrapped.name = error instanceof Error && error.name !== 'Error' ? error.name : 'LibraryMetricError';
  if (isRetryable(error) || isTransientError(error)) Object.assign(wrapped, { transient: true });
  return wrapped;
}

/** An LLM call that answered with tool calls only has no text answer for a library to judge: skipped, as mce's own. */
const toolCallsOnly = ({ level, element }: JudgedElement): string | undefined =>
  answeredWithToolCallsOnly(level, element) ? 'the LLM call answered with tool calls only: no text answer to judge' : undefined;

export function libraryMetric<I>(input: LibraryMetricDefinition<I>, source: () => Judge = defaultJudge): Metric {
  const definition = { ...input, notApplicable: input.notApplicable ?? toolCallsOnly };
  const id = `${definition.provider}:${definition.name}`;
  const judgeFor = (ctx: MetricContext): Judge => {
    const model = ctx.options.model;
    return typeof model === 'string' && model.trim() ? source().withModel(model.trim()) : source();
  };
  const target = (element: Element, ctx: MetricContext): JudgedElement => ({ level: ctx.level, element, session: ctx.session });
  const metadata: MetricMetadata = Object.freeze({
    name: definition.name,
    provider: definition.provider,
    levels: definition.levels,
    nature: 'llm-judged',
    unit: 'dimensionless',
    valueRange: definition.valueRange,
    description: definition.description,
    requirements: definition.requirements,
    dependsOn: [],
    options: definition.options,
  });

  return Object.freeze({
    metadata,

    cacheKey(element: Element, ctx: MetricContext): string | undefined {
      const judge = judgeFor(ctx);
      if (!judge.model || definition.notApplicable?.(target(element, ctx))) return undefined;
      let inputs: I;
      try {
        inputs = definition.inputs(target(element, ctx), ctx.options);
      } catch {
        return undefined; // compute() reports the missing input
      }
      const hash = sha256(stableJson({ inputs, options: ctx.options, endpoint: judge.endpoint, level: ctx.level, temperature: judge.config.temperature ?? 0, maxTokens: judge.config.maxTokens }));
      return `${definition.provider}|${definition.name}|${definition.library}|${judge.model}|in:${hash}`;
    },

    async compute(element: Element, ctx: MetricContext): Promise<MetricOutcome> {
      const reason = definition.notApplicable?.(target(element, ctx));
      if (reason) return skip(reason);
      const judge = judgeFor(ctx);
      const model = judge.requireModel(id);
      const inputs = definition.inputs(target(element, ctx), ctx.options);
      const meter = new CallMeter();
      const signal = ctx.signal ? { signal: ctx.signal } : {};
      const call: LibraryCall = {
        client: meteredOpenAI(judge, meter, signal),
        fetch: countingFetch(meter, { limiter: judgeLimiter(judge), ...signal }),
        judge,
        model,
        options: ctx.options,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      };
      let scored: LibraryScore;
      try {
        scored = await definition.score(inputs, call);
        if (!Number.isFinite(scored.value)) throw new Error(`the library returned no score (${String(scored.value)})`);
      } catch (error) {
        throw withUsage(libraryError(id, error), await judge.meteredUsage(meter)); // the calls were made: counted
      }
      return {
        value: scored.value,
        ...(scored.reasoning ? { reasoning: scored.reasoning } : {}),
        details: {
          ...scored.details,
          library: definition.library,
          judgeCalls: meter.calls.length,
          ...(meter.usageReported() ? {} : { usageReported: false }),
        },
        evaluation: await judge.meteredUsage(meter),
      };
    },
  });
}
