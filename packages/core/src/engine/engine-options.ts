import { availableParallelism } from 'node:os';
import { EngineOptionError } from './errors.js';
import type { StrategyName } from './strategies/strategy.js';
import { STRATEGY_NAMES } from './strategies/strategy.js';

export interface EngineOptions {
  /** `asyncio` (default), `thread`, `process` or `hybrid`. */
  strategy?: StrategyName;
  /** Size of the worker pool (thread/process) and concurrency of the async pool. Default: CPU count, at least 4. */
  maxWorkers?: number;
  /** Sessions computed at once by the batch methods. Default: maxWorkers. */
  sessionConcurrency?: number;
  /** Worker entry module (plain JS); defaults to the engine's own `worker-entry.js`. */
  workerEntry?: URL;
  /**
   * The longest one LLM-judged computation may take — one element's `compute` or one `computeBatch` call, in
   * milliseconds. Past it the computation's elements fail (transiently) and its `ctx.signal` aborts. Deterministic and
   * aggregate metrics are never timed (timeout.ts). Default: no limit.
   */
  metricTimeoutMs?: number;
}

export type EngineEnv = Readonly<Record<string, string | undefined>>;

/**
 * Engine options from `MCE_ENGINE_STRATEGY`, `MCE_ENGINE_MAX_WORKERS` and `MCE_METRIC_TIMEOUT_MS`; throws an
 * EngineOptionError for a bad value.
 */
export function engineOptionsFromEnv(env: EngineEnv): EngineOptions {
  const options: EngineOptions = {};
  const strategy = env.MCE_ENGINE_STRATEGY?.trim();
  if (strategy) options.strategy = parseStrategy(strategy, 'MCE_ENGINE_STRATEGY');
  const workers = env.MCE_ENGINE_MAX_WORKERS?.trim();
  if (workers) options.maxWorkers = parseMaxWorkers(workers, 'MCE_ENGINE_MAX_WORKERS');
  const timeout = env.MCE_METRIC_TIMEOUT_MS?.trim();
  if (timeout) options.metricTimeoutMs = parseTimeoutMs(timeout, 'MCE_METRIC_TIMEOUT_MS');
  return options;
}

/** The longest timer Node keeps (about 24.8 days); a longer delay would fire at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function parseTimeoutMs(value: string | number, source = 'metricTimeoutMs'): number {
  return wholeNumber(value, source, MAX_TIMEOUT_MS, `a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
}

export function parseStrategy(value: string, source = 'strategy'): StrategyName {
  const name = value.toLowerCase();
  if (!(STRATEGY_NAMES as readonly string[]).includes(name)) {
    throw new EngineOptionError(source, `one of ${STRATEGY_NAMES.join(', ')}`, value);
  }
  return name as StrategyName;
}

/** The largest pool (as mce_config.yaml's `max_workers` allows). */
export const MAX_WORKERS_LIMIT = 1024;

export function parseMaxWorkers(value: string | number, source = 'maxWorkers'): number {
  return wholeNumber(value, source, MAX_WORKERS_LIMIT, `an integer from 1 to ${MAX_WORKERS_LIMIT}`);
}

/** An integer from 1 to `max`; text must be digits only (Number() would also take "1e3" or "0x10"). */
function wholeNumber(value: string | number, source: string, max: number, expected: string): number {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) throw new EngineOptionError(source, expected, value);
  return n;
}

/** At least 4 (the original MCE's configured default): the async pool mostly waits on judge calls, not on CPU. */
export function defaultMaxWorkers(): number {
  return Math.max(4, availableParallelism());
}
