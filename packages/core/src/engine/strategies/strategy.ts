import type { MetricContext } from '../../contracts/metric.js';
import type { MetricResult } from '../../ontology/metric-result.js';
import type { Element, OntologyLevel, Session } from '../../ontology/types.js';
import type { RegisteredMetric } from '../metric-registry.js';
import type { DependencyView } from '../result-lookup.js';
import type { ElementOutcome } from '../record-builder.js';

/** A task's MetricContext: its results are the task's DependencyView (what workers are sent of them). */
export type TaskContext = MetricContext & { results: DependencyView };

export const STRATEGY_NAMES = ['asyncio', 'thread', 'process', 'hybrid'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** One metric at one level of one session, on the given elements (all of the level, or the cache misses). */
export interface TaskJob {
  readonly entry: RegisteredMetric;
  readonly level: OntologyLevel;
  readonly elements: readonly Element[];
  /** Positions of `elements` in `elementsAt(session, level)`; undefined when `elements` is the whole level. */
  readonly indices: readonly number[] | undefined;
  readonly ctx: TaskContext;
}

/** Receives one job's outcomes (one per element, in order) as soon as the job is done. */
export type JobDone = (jobIndex: number, outcomes: ElementOutcome[]) => void;

/**
 * Runs the jobs of one stage of one session, handing each job's outcomes to `done` as it completes (jobs complete in
 * any order; the engine puts the records back in job order). Resolves when every job is done.
 */
export interface ExecutionStrategy {
  readonly name: StrategyName;
  runStage(session: Session, jobs: readonly TaskJob[], done: JobDone): Promise<void>;
  /** Stops worker threads / processes. The strategy may be used again afterwards (pools restart lazily). */
  close(): Promise<void>;
}

/** The results some of `jobs` depend on, by `provider:name` key (sent to workers once per request). */
export function dependencyResults(jobs: readonly TaskJob[]): Record<string, MetricResult[]> {
  const out: Record<string, MetricResult[]> = {};
  for (const job of jobs) {
    const view = job.ctx.results;
    for (const key of new Set(view.keys.values())) out[key] ??= view.lookup.all(key);
  }
  return out;
}
