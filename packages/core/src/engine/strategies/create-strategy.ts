import { AsyncStrategy, createLimiter } from './async-strategy.js';
import { PooledStrategy } from './pooled-strategy.js';
import type { ExecutionStrategy, StrategyName } from './strategy.js';
import type { WorkerKind } from './worker-pool.js';
import { WorkerPool } from './worker-pool.js';

/** The worker entry next to this module: `dist/…/worker-entry.js` when built, `src/…/worker-entry.js` under tests. */
export const DEFAULT_WORKER_ENTRY = new URL('./worker-entry.js', import.meta.url);

export interface StrategyConfig {
  strategy: StrategyName;
  /** Worker threads / processes in the pool, and the async pool's concurrency. */
  maxWorkers: number;
  workerEntry?: URL;
  /** The metric timeout (see timeout.ts); none when undefined. */
  metricTimeoutMs?: number;
}

export function createStrategy({ strategy, maxWorkers, workerEntry = DEFAULT_WORKER_ENTRY, metricTimeoutMs }: StrategyConfig): ExecutionStrategy {
  const limit = createLimiter(maxWorkers);
  if (strategy === 'asyncio') return new AsyncStrategy(limit, metricTimeoutMs);
  // thread and hybrid run their pooled metrics on worker threads.
  const kind: WorkerKind = strategy === 'process' ? 'process' : 'thread';
  return new PooledStrategy(strategy, new WorkerPool(kind, workerEntry, maxWorkers), limit, metricTimeoutMs);
}
