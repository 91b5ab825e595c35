import type { ElementByLevel, OntologyLevel, Session } from '../ontology/types.js';
import type { EvaluationUsage, MetricResult } from '../ontology/metric-result.js';

export type MetricNature = 'deterministic' | 'llm-judged' | 'aggregate';

export interface MetricMetadata {
  name: string;
  /** Provider id, e.g. `mce`. */
  provider: string;
  levels: readonly OntologyLevel[];
  nature: MetricNature;
  unit: string;
  valueRange: string;
  description: string;
  /** Inputs the metric needs, in words (`llmCalls.usage`, `userInput`, `toolCalls.result`, …). */
  requirements: readonly string[];
  /** Names of metrics whose results this one derives from (same provider unless `provider:name`). */
  dependsOn: readonly string[];
  /**
   * The options the metric reads, snake_case as `mce_config.yaml` writes them (`[]`: none). When given, any other
   * option set for the metric is a configuration error (a misspelt `treshold` is not silently ignored); when absent,
   * every option is passed through unchecked.
   */
  options?: readonly string[];
}

/** What a metric computed for one element. */
export interface MetricValue {
  value: number;
  reasoning?: string;
  details?: Record<string, unknown>;
  /** Usage of the LLM calls made; absent for metrics that make none. */
  evaluation?: EvaluationUsage;
}

/** The metric does not apply to this element (e.g. no agent transition); reported, never scored. */
export interface MetricSkip {
  skipped: string;
}

export type MetricOutcome = MetricValue | MetricSkip;

export function skip(reason: string): MetricSkip {
  return { skipped: reason };
}
/**
 * True for an error that says a service the metric depends on failed (a judge that could not be reached after its
 * retries), not the data: a later attempt may succeed. Any error carrying `transient: true` counts, so providers need
 * no shared class. The engine marks the FailedRecord (`transient: true`); the worker retries such a message instead of
 * acking it.
 */
export function isTransientError(error: unknown): boolean {
  return error instanceof Error && (error as { transient?: unknown }).transient === true;
}

export function isSkip(outcome: MetricOutcome): outcome is MetricSkip {
  return (outcome as MetricSkip).skipped !== undefined;
}

/** Read access to the results of the metrics this one declares in `dependsOn`, computed earlier in this run. */
export interface ResultLookup {
  /**
   * The result of metric `name` for the element `elementId`, if computed and successful. `level`: the element's
   * ontology class, for an id two levels share (a session whose id is its trace id, and that trace's implicit MAS
   * call); default: the asking metric's own level first, then any.
   */
  get(name: string, elementId: string, level?: OntologyLevel): MetricResult | undefined;
  /** Every successful result of metric `name` in this session. */
  all(name: string): MetricResult[];
  /**
   * Optional fast path for aggregates: the `result` of each successful result of metric `name` at `level`, in the
   * order of `all(name)` — `all(name).filter((r) => r.measures.level === level).map((r) => r.result)` without
   * building a MetricResult per result. Callers fall back to `all` when a lookup does not have it.
   */
  valuesAt?(name: string, level: OntologyLevel): number[];
}

export interface MetricContext<L extends OntologyLevel = OntologyLevel> {
  session: Session;
  level: L;
  /** Per-metric options from config (threshold, model, eval_mode, …). */
  options: Readonly<Record<string, unknown>>;
  results: ResultLookup;
  signal?: AbortSignal;
}

export interface Metric<L extends OntologyLevel = OntologyLevel> {
  readonly metadata: MetricMetadata;
  compute(element: ElementByLevel[L], ctx: MetricContext<L>): MetricOutcome | Promise<MetricOutcome>;
  /**
   * Optional record/replay key: metric, provider, options, judge model, prompt version and a hash of the exact inputs.
   * When given and a CacheManager is set, the engine replays a cached value instead of computing (LLM-judged metrics).
   */
  cacheKey?(element: ElementByLevel[L], ctx: MetricContext<L>): string | undefined;
  /** Optional: compute many elements at once (one judge round-trip, vectorised work, …). Same order as input. */
  computeBatch?(
    elements: ElementByLevel[L][],
    ctx: MetricContext<L>,
  ): Promise<Array<MetricOutcome | Error>>;
}

/** A metric whose computation can run off the main thread: it is loaded by module specifier and export name. */
export interface PortableMetricRef {
  module: string;
  exportName: string;
}
