/**
 * The shared shape of the three MCP metrics: options and eval mode resolved per computation, skip without an MCP
 * server, the judge model's default, threshold / strict mode / reasons, the flaky mark, verbose output, evaluation
 * usage and a record/replay key.
 */
import type {
  Element,
  Metric,
  MetricContext,
  MetricOutcome,
  MetricValue,
  OntologyLevel,
} from '@mce/core';
import { MCP_OPTION_NAMES, skip } from '@mce/core';
import type { Judge } from '../judge/judge.js';
import { sumEvaluationUsage } from '../judge/usage-meter.js';
import { NATIVE_MODULE, NATIVE_PROVIDER } from '../metrics/deterministic/define.js';
import { defaultJudge } from '../metrics/llm/default-judge.js';
import { judgedMetadata, judgeSettings, sha256, stableJson, type JudgeSource } from '../metrics/llm/define.js';
import { EVAL_MODE_ENV, persistedEvalMode, resolveEvalMode, type EvalMode, type ResolvedEvalMode } from './eval-mode.js';
import { LOCAL_SYSTEM_ONE_NAMES, parseMcpOptions, type McpMetricOptions } from './options.js';
import { MCP_PROMPT_VERSION } from './rubrics.js';
import { r3, McpJudging } from './sub-scores.js';
import { systemOneModelFor } from './system-one/resolve-model.js';
import type { SystemOneModel } from './system-one/types.js';

export interface McpMetricDeps {
  /** The judge (default: the process's default judge from the environment). */
  judge?: JudgeSource;
  /**
   * Resolves `system_one_model`, once per id for the metric (default: `local` or `endpoint:<model>` on the judge's
   * endpoint); `judge` is the metric's base judge.
   */
  systemOne?: (id: string, judge: () => Judge) => SystemOneModel;
  /** Where MCE_EVAL_MODE is read (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The mode persisted by `mce set-eval-mode` (default: the process-wide value set with setPersistedEvalMode). */
  persistedEvalMode?: () => string | undefined;
  /** Library-API options; the config's per-metric options override them. */
  options?: Readonly<Record<string, unknown>>;
  /** Where verbose_mode prints its steps (default: process.stderr). */
  verboseOutput?: (text: string) => void;
}

/** The seed's judge model, used when neither the metric's `model` nor LLM_MODEL_NAME names one. */
export const DEFAULT_MCP_JUDGE_MODEL = 'gpt-5.4';

const writeStderr = (text: string): void => {
  process.stderr.write(text);
};

/** What one metric computes once its target is known. */
export interface McpEvaluation {
  /** The score before strict mode. */
  score: number;
  /** Reason lines (joined with newlines). */
  lines: string[];
  details: Record<string, unknown>;
}

export type McpTarget<T> = { skipped: string } | { target: T };

export interface McpMetricDefinition<T> {
  name: string;
  levels: readonly OntologyLevel[];
  description: string;
  requirements: readonly string[];
  /** The thing judged, or why the metric does not apply. */
  target(element: Element, ctx: MetricContext): McpTarget<T>;
  /** Throws MissingJudgeInputError when an input is missing. */
  check(target: T): void;
  evaluate(target: T, mode: EvalMode, judging: McpJudging): Promise<McpEvaluation>;
}

export interface McpMetric extends Metric {
  readonly portable: { module: string; exportName: string };
  /** The options and eval mode a computation with these config options would use. */
  settings(ctx: Pick<MetricContext, 'options'>): { options: McpMetricOptions; evalMode: ResolvedEvalMode };
}

function judgeGetter(source: JudgeSource | undefined): () => Judge {
  if (!source) return defaultJudge;
  return typeof source === 'function' ? source : () => source;
}

export function mcpMetric<T>(definition: McpMetricDefinition<T>, deps: McpMetricDeps = {}): McpMetric {
  const baseJudge = judgeGetter(deps.judge);
  /**
   * The judge for the `model` option: its derived judge for that model (same endpoint and options), else the base
   * judge with its configured model (LLM_MODEL_NAME), else the base judge asking DEFAULT_MCP_JUDGE_MODEL.
   */
  const judgeFor = (model?: string): Judge => {
    const base = baseJudge();
    return base.withModel(model ?? base.model ?? DEFAULT_MCP_JUDGE_MODEL);
  };
  const verboseOutput = deps.verboseOutput ?? writeStderr;
  const resolveSystemOne = deps.systemOne ?? systemOneModelFor;
  // One System One model per id for the metric's lifetime (an endpoint model keeps its judge and client).
  const systemOnes = new Map<string, SystemOneModel>();
  const systemOneFor = (id: string): SystemOneModel => {
    let model = systemOnes.get(id);
    if (!model) {
      model = resolveSystemOne(id, baseJudge);
      systemOnes.set(id, model);
    }
    return model;
  };
  const metadata = judgedMetadata(definition, MCP_OPTION_NAMES);
  const levels = new Set(definition.levels);
  if (deps.options) parseMcpOptions(deps.options); // a bad option given at construction fails here, not at the first element

  // The engine hands the same (read-only) options object to every element of a run: parse it once.
  const parsed = new WeakMap<object, McpMetricOptions>();
  const settings = (ctx: Pick<MetricContext, 'options'>) => {
    let options = parsed.get(ctx.options);
    if (!options) {
      options = parseMcpOptions(deps.options, ctx.options);
      parsed.set(ctx.options, options);
    }
    const env = deps.env ?? process.env;
    const evalMode = resolveEvalMode({
      metricOption: options.evalMode,
      env: env[EVAL_MODE_ENV],
      persisted: (deps.persistedEvalMode ?? persistedEvalMode)(),
    });
    return { options, evalMode };
  };

  const targetOf = (element: Element, ctx: MetricContext): McpTarget<T> => {
    if (!levels.has(ctx.level)) throw new Error(`${definition.name} is not defined at the ${ctx.level} level`);
    return definition.target(element, ctx);
  };

  function judgingFor(options: McpMetricOptions, signal?: AbortSignal): McpJudging {
    const print = options.verboseMode ? verboseOutput : undefined;
    return new McpJudging(definition.name, options, () => judgeFor(options.model), () => systemOneFor(options.systemOneModel), signal, print);
  }

  return Object.freeze({
    metadata,
    portable: Object.freeze({ module: NATIVE_MODULE, exportName: definition.name }),
    settings,

    cacheKey(element: Element, ctx: MetricContext): string | undefined {
      let s: ReturnType<typeof settings>;
      let target: McpTarget<T>;
      try {
        s = settings(ctx);
        target = targetOf(element, ctx);
      } catch {
        return undefined; // compute() reports it
      }
      // system_one with the local model is cheaper to recompute than to look up.
      if ('skipped' in target || (s.evalMode.mode === 'system_one' && LOCAL_SYSTEM_ONE_NAMES.includes(s.options.systemOneModel))) return undefined;
      const judge = s.evalMode.mode === 'system_one' ? undefined : judgeFor(s.options.model);
      const judgeModel = judge ? judge.model : '-';
      // An endpoint System One model asks the judge's endpoint: its URL and sampling are part of the key as well.
      const endpoint = judge ?? (s.options.systemOneModel.startsWith('endpoint:') ? baseJudge() : undefined);
      const inputs = sha256(stableJson({ target: target.target, level: ctx.level }));
      // The judge's sampling and endpoint change an llm or hybrid result as much as the metric's own options do.
      const opts = sha256(stableJson({ options: s.options, mode: s.evalMode.mode, judge: endpoint ? judgeSettings(endpoint) : null }));
      return `${NATIVE_PROVIDER}|${definition.name}|v${MCP_PROMPT_VERSION}|${s.evalMode.mode}|${judgeModel}|${s.options.systemOneModel}|opts:${opts.slice(0, 16)}|in:${inputs}`;
    },

    async compute(element: Element, ctx: MetricContext): Promise<MetricOutcome> {
      const { options, evalMode } = settings(ctx);
      const found = targetOf(element, ctx);
      if ('skipped' in found) return skip(found.skipped);
      definition.check(found.target);

      const judging = judgingFor(options, ctx.signal);
      const evaluation = await definition.evaluate(found.target, evalMode.mode, judging);
      const usages = judging.usages;
      const usageUnreported = judging.usageUnreported;

      const threshold = options.strictMode ? 1 : options.threshold;
      const value = options.strictMode ? (evaluation.score >= 1 ? 1 : 0) : evaluation.score;
      const lines = [...evaluation.lines];
      if (options.strictMode) lines.push(`Strict mode: ${r3(evaluation.score)} ${value === 1 ? 'is' : 'is not'} a perfect score, so the score is ${value}.`);
      const usage = sumEvaluationUsage(usages);
      const result: MetricValue = {
        value,
        reasoning: options.includeReason ? lines.join('\n') : '',
        details: {
          evalMode: evalMode.mode,
          evalModeSource: evalMode.source,
          threshold,
          ...(threshold === null ? {} : { success: value >= threshold }),
          strictMode: options.strictMode,
          ...(options.strictMode ? { unstrictScore: evaluation.score } : {}),
          ...evaluation.details,
          ...(evalMode.mode !== 'llm' ? { systemOneModel: options.systemOneModel } : {}),
          ...(evalMode.mode !== 'system_one' ? { judgeModel: judgeFor(options.model).model ?? null } : {}),
          promptVersion: MCP_PROMPT_VERSION,
          // flaky only marks the result (the seed's "marks the metric as flaky"): no retry, the same score.
          ...(options.flaky ? { flaky: true } : {}),
          // A judge or endpoint reply carried no usage: the evaluation counts 0 for it, which is not what it cost.
          ...(usageUnreported ? { usageReported: false } : {}),
          ...(options.verboseMode ? { steps: judging.steps } : {}),
        },
        ...(usage ? { evaluation: usage } : {}),
      };
      return result;
    },
  });
}
