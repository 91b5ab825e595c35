import pLimit from 'p-limit';
import type { Session } from '../../ontology/types.js';
import type { Limiter } from './in-process.js';
import { runInProcess } from './in-process.js';
import type { ExecutionStrategy, JobDone, TaskJob } from './strategy.js';

export function createLimiter(concurrency: number): Limiter {
  const limit = pLimit(concurrency);
  return (fn) => limit(fn);
}

/** `asyncio`: everything on this thread; LLM-judged calls run concurrently up to the limit (a promise pool). */
export class AsyncStrategy implements ExecutionStrategy {
  readonly name = 'asyncio';

  constructor(
    private readonly limit: Limiter,
    private readonly timeoutMs?: number,
  ) {}

  async runStage(_session: Session, jobs: readonly TaskJob[], done: JobDone): Promise<void> {
    await Promise.all(jobs.map((job, i) => runInProcess(job, this.limit, this.timeoutMs).then((outcomes) => done(i, outcomes))));
  }

  async close(): Promise<void> {}
}
