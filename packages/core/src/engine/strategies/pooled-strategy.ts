import type { Session } from '../../ontology/types.js';
import type { ElementOutcome } from '../record-builder.js';
import type { Limiter } from './in-process.js';
import { runInProcess } from './in-process.js';
import type { ExecutionStrategy, JobDone, TaskJob } from './strategy.js';
import { dependencyResults } from './strategy.js';
import type { WireOutcome, WireTask } from './wire.js';
import type { WorkerPool } from './worker-pool.js';

/**
 * `thread` / `process`: every metric registered with a PortableMetricRef runs in the pool; `hybrid`: the same, except
 * LLM-judged metrics, which stay on the async pool (their work is waiting on the network, not CPU). A metric without
 * a PortableMetricRef cannot be loaded by a worker, so it always runs on the async pool.
 */
export class PooledStrategy implements ExecutionStrategy {
  constructor(
    readonly name: 'thread' | 'process' | 'hybrid',
    private readonly pool: WorkerPool,
    private readonly limit: Limiter,
    private readonly timeoutMs?: number,
  ) {}

  async runStage(session: Session, jobs: readonly TaskJob[], done: JobDone): Promise<void> {
    const running: Array<Promise<void>> = [];
    const remote: number[] = [];
    jobs.forEach((job, i) => {
      if (this.#offThread(job)) remote.push(i);
      else running.push(runInProcess(job, this.limit, this.timeoutMs).then((outcomes) => done(i, outcomes)));
    });
    for (const chunk of balance(remote, jobs, this.pool.size)) {
      running.push(this.#runRemote(session, jobs, chunk, done));
    }
    await Promise.all(running);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  #offThread(job: TaskJob): boolean {
    if (!job.entry.portableRef) return false;
    return this.name !== 'hybrid' || job.entry.metric.metadata.nature !== 'llm-judged';
  }

  async #runRemote(session: Session, jobs: readonly TaskJob[], chunk: number[], done: JobDone): Promise<void> {
    const chunkJobs = chunk.map((i) => jobs[i] as TaskJob);
    let replies: WireOutcome[][];
    try {
      const tasks = chunkJobs.map((job) => toWire(job, this.timeoutMs, this.pool.size));
      replies = await this.pool.run(session, dependencyResults(chunkJobs), tasks);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      chunk.forEach((jobIndex, k) => done(jobIndex, (chunkJobs[k] as TaskJob).elements.map(() => failure)));
      return;
    }
    chunk.forEach((jobIndex, k) => done(jobIndex, (replies[k] ?? []).map(fromWire)));
  }
}

/** Below this many element computations per worker, splitting a stage costs more (one session copy per request) than it saves. */
const SPLIT_THRESHOLD = 5_000;

/**
 * Splits jobs into groups of similar element counts, one worker request each: at most `n`, and fewer for a light
 * stage (batches keep the workers busy with several sessions at once anyway).
 */
function balance(indices: number[], jobs: readonly TaskJob[], n: number): number[][] {
  const total = indices.reduce((sum, i) => sum + (jobs[i] as TaskJob).elements.length, 0);
  const count = Math.min(n, indices.length, Math.max(1, Math.ceil(total / SPLIT_THRESHOLD)));
  const groups = Array.from({ length: count }, () => ({ size: 0, items: [] as number[] }));
  const bySize = [...indices].sort((a, b) => (jobs[b] as TaskJob).elements.length - (jobs[a] as TaskJob).elements.length);
  for (const i of bySize) {
    const smallest = groups.reduce((min, g) => (g.size < min.size ? g : min));
    smallest.items.push(i);
    smallest.size += (jobs[i] as TaskJob).elements.length;
  }
  // Keep the original job order inside each request (deterministic output order does not depend on it, but logs do).
  return groups.map((g) => g.items.sort((a, b) => a - b));
}

/**
 * An LLM-judged task runs in the worker as on the async pool: `concurrency` computations at a time, each timed from
 * its own start with the metric timeout (if any).
 */
function toWire(job: TaskJob, timeoutMs: number | undefined, concurrency: number): WireTask {
  const task: WireTask = {
    ref: job.entry.portableRef as NonNullable<TaskJob['entry']['portableRef']>,
    metricKey: job.entry.key,
    level: job.level,
    options: { ...job.ctx.options },
    dependencyKeys: Object.fromEntries(job.ctx.results.keys),
  };
  if (job.indices) task.indices = [...job.indices];
  if (job.entry.metric.metadata.nature === 'llm-judged') {
    task.concurrency = concurrency;
    if (timeoutMs !== undefined) task.timeoutMs = timeoutMs;
  }
  return task;
}

function fromWire(outcome: WireOutcome): ElementOutcome {
  if (outcome === null || typeof outcome !== 'object' || !('$failed' in outcome)) return outcome;
  const error = new Error(outcome.$failed);
  return outcome.$transient ? Object.assign(error, { transient: true }) : error;
}
