import type { EvaluationUsage } from '../ontology/metric-result.js';

/** What a record/replay cache keeps for one metric computation. */
export interface CachedComputation {
  value: number;
  reasoning?: string;
  details?: Record<string, unknown>;
  evaluation?: EvaluationUsage;
  /** ISO time it was recorded. */
  recordedAt: string;
}

/**
 * Record/replay cache for metric computations. The key is built by the caller from metric, provider, metric
 * options, judge model, prompt version and a hash of the exact inputs (see `cacheKey`).
 */
export interface CacheManager {
  readonly read: boolean;
  readonly write: boolean;
  get(key: string): Promise<CachedComputation | undefined>;
  set(key: string, value: CachedComputation): Promise<void>;
}
