import { randomUUID } from 'node:crypto';
import type { CacheManager, CachedComputation } from '../contracts/cache.js';
import type { Metric, MetricOutcome, MetricValue, PortableMetricRef } from '../contracts/metric.js';
import { isSkip } from '../contracts/metric.js';
import type { DataProvider, MetricProvider } from '../contracts/provider.js';
import type { Element, OntologyLevel, Session } from '../ontology/types.js';
import { elementsAt } from '../ontology/types.js';
import type { EngineOptions } from './engine-options.js';
import { defaultMaxWorkers, parseMaxWorkers, parseStrategy, parseTimeoutMs } from './engine-options.js';
import { SessionNotFoundError } from './errors.js';
import { checkMetricOptions } from './metric-options.js';
import { MetricRegistry, aliasKeys } from './metric-registry.js';
import type { RegisteredMetric } from './metric-registry.js';
import { setUnstoredResultIds, unstoredResultIds, type ResultRecord, type SessionComputation } from './output.js';
import type { ElementOutcome } from './record-builder.js';
import { buildRecords, invalidOutcome, toError } from './record-builder.js';
import { resultIdTails, sessionDigest, taskIdPrefix } from './result-id.js';
import { DependencyView, SessionResultLookup } from './result-lookup.js';
import type { ExecutionPlan, MetricRequest, ScheduledTask } from './scheduler.js';
import { TopologicalScheduler } from './scheduler.js';
import { createStrategy } from './strategies/create-strategy.js';
import type { ExecutionStrategy, StrategyName, TaskContext, TaskJob } from './strategies/strategy.js';

/** Metric names per ontology level, as in `mce_config.yaml`'s `metrics:` section. */
export type MetricSelection = Partial<Record<OntologyLevel, readonly string[]>>;

export interface ComputeOptions {
  /** true (default): every selected level; false: only the Session-level selection (plus its dependencies). */
  recursive?: boolean;
  /**
   * Which metrics, per level; or a list of names, each computed at every level it supports (only Session when not
   * recursive). Default: every registered metric at every level it supports.
   */
  metrics?: MetricSelection | readonly string[];
  /** Identifies the computation in result ids; re-using it makes a re-run overwrite instead of duplicate. */
  runId?: string;
  /** Per-metric options (threshold, model, eval_mode, …), by metric name or `provider:name`. */
  metricOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Stops between stages (the computation rejects with the signal's reason); metrics also receive it in their context. */
  signal?: AbortSignal;
  /**
   * true (default): results of metrics computed only because a selected metric depends on them are reported too;
   * false: only the selected (metric, level) pairs are.
   */
  reportDependencies?: boolean;
  /**
   * Streams the records out: called with each task's records (results, failures, skips of one metric at one level)
   * as soon as that task is done, in completion order; the computation then returns empty lists. A session of
   * 100,000 spans makes some 340,000 records: handed over this way they can be written and dropped while the rest
   * computes, instead of all living (and being moved by the garbage collector) until the session is done. An error
   * thrown by `onResults` rejects the computation.
   */
  onResults?: (part: SessionComputation) => void;
}

interface RunContext {
  plan: ExecutionPlan;
  runId: string;
  options: ComputeOptions;
  cache: CacheManager | undefined;
}

/** The prepared part of one task: its elements, cached outcomes, and what is left to compute. */
interface PreparedTask {
  task: ScheduledTask;
  elements: Element[];
  ctx: TaskContext;
  outcomes: ElementOutcome[];
  keys: Array<string | undefined> | undefined;
  /** Elements not replayed from the cache; undefined = all. */
  missing: number[] | undefined;
}

const NO_OPTIONS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Computes metrics over sessions (SPEC §2): dependency order from the TopologicalScheduler, one task per
 * (metric, level) on every element of the level, failure isolation (an error is that result's FailedRecord), and
 * record/replay through an optional CacheManager. Pure computation: sessions come from a DataProvider or memory.
 */
export class MetricEngine {
  readonly registry: MetricRegistry;
  readonly strategyName: StrategyName;
  readonly maxWorkers: number;
  readonly #scheduler: TopologicalScheduler;
  readonly #options: EngineOptions;
  #strategy: ExecutionStrategy | undefined;
  #dataProvider: DataProvider | undefined;
  #cache: CacheManager | undefined;

  constructor(options: EngineOptions = {}, registry: MetricRegistry = new MetricRegistry()) {
    this.#options = options;
    this.registry = registry;
    // Checked here, not at the first compute: an unknown name would otherwise surface there as a TypeError.
    this.strategyName = options.strategy === undefined ? 'asyncio' : parseStrategy(options.strategy);
    this.maxWorkers = options.maxWorkers === undefined ? defaultMaxWorkers() : parseMaxWorkers(options.maxWorkers);
    if (options.metricTimeoutMs !== undefined) parseTimeoutMs(options.metricTimeoutMs);
    this.#scheduler = new TopologicalScheduler(registry);
  }

  /** `portableRef` lets thread/process strategies load the metric in a worker; without one it runs on the async pool. */
  registerMetric(metric: Metric, portableRef?: PortableMetricRef): RegisteredMetric {
    return this.registry.register(metric, portableRef);
  }

  registerProvider(provider: MetricProvider, portableRef?: PortableMetricRef): void {
    this.registry.registerProvider(provider, portableRef);
  }

  setDataProvider(provider: DataProvider): void {
    this.#dataProvider = provider;
  }

  setCacheManager(cache: CacheManager | undefined): void {
    this.#cache = cache;
  }

  /** The tasks a computation would run, by stage; throws the selection / dependency errors a compute would. */
  plan(options: ComputeOptions = {}): ExecutionPlan {
    return this.#scheduler.plan(this.#requests(options));
  }

  async computeSession(sessionId: string, options: ComputeOptions = {}): Promise<SessionComputation> {
    const run = this.#run(options);
    const session = await this.#requireProvider().retrieve(sessionId);
    if (!session) throw new SessionNotFoundError([sessionId]);
    return this.#computeOne(session, run);
  }

  /** Results in the order of `sessionIds`; throws SessionNotFoundError (before computing) for unknown ids. */
  async computeSessionsBatch(sessionIds: readonly string[], options: ComputeOptions = {}): Promise<SessionComputation[]> {
    const run = this.#run(options);
    const sessions = await this.#requireProvider().fetchBatch(sessionIds);
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const missing = sessionIds.filter((id) => !byId.has(id));
    if (missing.length > 0) throw new SessionNotFoundError(missing);
    return this.#computeMany(
      sessionIds.map((id) => byId.get(id) as Session),
      run,
    );
  }

  async computeLoadedSession(session: Session, options: ComputeOptions = {}): Promise<SessionComputation> {
    return this.#computeOne(session, this.#run(options));
  }

  async computeLoadedSessions(sessions: readonly Session[], options: ComputeOptions = {}): Promise<SessionComputation[]> {
    return this.#computeMany(sessions, this.#run(options));
  }

  /** Stops worker threads / processes (they are also unref'd while idle, so an open engine never blocks exit). */
  async close(): Promise<void> {
    const strategy = this.#strategy;
    this.#strategy = undefined;
    await strategy?.close();
  }

  /** Throws a MetricOptionsError for options of an unknown metric or options a metric does not read. */
  checkOptions(metricOptions: ComputeOptions['metricOptions']): void {
    checkMetricOptions(this.registry, metricOptions);
  }

  #run(options: ComputeOptions): RunContext {
    const plan = this.plan(options);
    checkMetricOptions(this.registry, options.metricOptions);
    return { plan, runId: options.runId ?? randomUUID(), options, cache: this.#cache };
  }

  #requireProvider(): DataProvider {
    if (!this.#dataProvider) throw new Error('No data provider set: call setDataProvider() first');
    return this.#dataProvider;
  }

  #strategyInstance(): ExecutionStrategy {
    this.#strategy ??= createStrategy({
      strategy: this.strategyName,
      maxWorkers: this.maxWorkers,
      ...(this.#options.workerEntry ? { workerEntry: this.#options.workerEntry } : {}),
      ...(this.#options.metricTimeoutMs !== undefined ? { metricTimeoutMs: this.#options.metricTimeoutMs } : {}),
    });
    return this.#strategy;
  }

  #requests({ metrics, recursive = true }: ComputeOptions): MetricRequest[] {
    const requests: MetricRequest[] = [];
    if (metrics === undefined || Array.isArray(metrics)) {
      const entries = metrics === undefined ? this.registry.list() : (metrics as readonly string[]);
      for (const item of entries) {
        const name = typeof item === 'string' ? item : item.key;
        const entry = typeof item === 'string' ? this.registry.find(item) : item;
        // Unknown names are reported by the scheduler with the level they were asked at.
        const levels = entry ? entry.metric.metadata.levels : (['Session'] as const);
        if (!recursive) {
          if (metrics !== undefined || levels.includes('Session')) requests.push({ metric: name, level: 'Session' });
        } else {
          for (const level of levels) requests.push({ metric: name, level });
        }
      }
      return requests;
    }
    const selection = metrics as MetricSelection;
    for (const level of Object.keys(selection) as OntologyLevel[]) {
      if (!recursive && level !== 'Session') continue;
      for (const metric of selection[level] ?? []) requests.push({ metric, level });
    }
    return requests;
  }

  async #computeMany(sessions: readonly Session[], run: RunContext): Promise<SessionComputation[]> {
    const out = new Array<SessionComputation>(sessions.length);
    const concurrency = Math.max(1, this.#options.sessionConcurrency ?? this.maxWorkers);
    let next = 0;
    let failed = false;
    const lane = async (): Promise<void> => {
      // Once one session has failed the batch rejects: the other lanes stop taking sessions (their running one ends).
      while (next < sessions.length && !failed) {
        const i = next++;
        try {
          out[i] = await this.#computeOne(sessions[i] as Session, run);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, sessions.length) }, lane));
    return out;
  }

  async #computeOne(session: Session, run: RunContext): Promise<SessionComputation> {
    try {
      return await this.#computeStages(session, run);
    } finally {
      for (const provider of this.registry.providers()) {
        try {
          provider.releaseSession?.(session);
        } catch {
          // a provider failing to drop a cache must not turn a finished computation into a failed one
        }
      }
    }
  }

  async #computeStages(session: Session, run: RunContext): Promise<SessionComputation> {
    const sessionId = session.id;
    // Every reported task's bucket, in order; joined once at the end (see joinBuckets).
    const reported: SessionComputation[] = [];
    const lookup = new SessionResultLookup(session.id);
    const strategy = this.#strategyInstance();
    const report = run.options.reportDependencies ?? true;
    const stream = run.options.onResults;
    const digest = sessionDigest(run.runId, session.id);
    // The element half of the result ids, hashed once per level list and shared by the tasks on it.
    const idTails = new Map<readonly Element[], Uint8Array>();
    for (const stage of run.plan.stages) {
      run.options.signal?.throwIfAborted();
      const prepared = stage.map((task) => this.#prepare(task, session, lookup, run));
      if (run.cache?.read) await Promise.all(prepared.map((p) => this.#replay(p, run.cache as CacheManager)));
      // Records are built as soon as a task is done (its outcome objects can then die young), into one bucket per
      // task, and appended in task order at the end of the stage: the same order whatever the strategy.
      const buckets = new Array<SessionComputation>(prepared.length);
      const writes: Array<Promise<void>> = [];
      const finish = (k: number): void => {
        const p = prepared[k] as PreparedTask;
        const { entry, level, requested } = p.task;
        const { provider, name } = entry.metric.metadata;
        if (run.cache?.write) writes.push(this.#record(p, run.cache));
        const bucket: SessionComputation = { sessionId, results: [], failed: [], skipped: [] };
        const prefix = taskIdPrefix(digest, provider, name, level);
        const timestamp = new Date().toISOString();
        let tails = idTails.get(p.elements);
        if (!tails && p.elements.length > 1) idTails.set(p.elements, (tails = resultIdTails(p.elements)));
        buildRecords(entry.metric.metadata, level, p.elements, p.outcomes, prefix, timestamp, bucket, tails, entry.jsonDetails !== true);
        // Kept for look-ups only when a later task declared it needs them.
        if (run.plan.dependencyKeys.has(entry.key)) lookupAdds.push([k, entry.key, bucket.results]);
        if (report || requested) {
          if (stream) stream(bucket);
          else buckets[k] = bucket;
        }
        p.outcomes = [];
      };
      const lookupAdds: Array<[number, string, ResultRecord[]]> = [];
      const jobs: TaskJob[] = [];
      const owners: number[] = [];
      prepared.forEach((p, k) => {
        const elements = p.missing ? p.missing.map((i) => p.elements[i] as Element) : p.elements;
        if (elements.length === 0) return finish(k); // nothing to compute: no elements, or all replayed
        jobs.push({ entry: p.task.entry, level: p.task.level, elements, indices: p.missing, ctx: p.ctx });
        owners.push(k);
      });
      if (jobs.length > 0) {
        await strategy.runStage(session, jobs, (j, outcomes) => {
          const k = owners[j] as number;
          mergeComputed(prepared[k] as PreparedTask, outcomes);
          finish(k);
        });
      }
      if (writes.length > 0) await Promise.all(writes);
      for (const bucket of buckets) if (bucket) reported.push(bucket);
      // In task order, not completion order: what a later metric reads must not depend on the strategy's timing.
      lookupAdds.sort((a, b) => a[0] - b[0]);
      for (const [, key, results] of lookupAdds) lookup.add(key, results);
    }
    // Aborted during the last stage: the computation rejects, as it would between stages.
    run.options.signal?.throwIfAborted();
    return joinBuckets(sessionId, reported);
  }

  #prepare(task: ScheduledTask, session: Session, lookup: SessionResultLookup, run: RunContext): PreparedTask {
    const { metric, key } = task.entry;
    // Options under a bare name are the options of the metric that name means (the preferred provider's, when two
    // share it): a plugin's `acme:AnswerRelevancy` does not get the built-in AnswerRelevancy's.
    const bare = run.options.metricOptions?.[metric.metadata.name];
    const options =
      run.options.metricOptions?.[key] ??
      (bare !== undefined && this.registry.find(metric.metadata.name)?.key === key ? bare : undefined) ??
      optionsByAlias(run.options.metricOptions, key) ??
      NO_OPTIONS;
    const ctx: TaskContext = { session, level: task.level, options, results: new DependencyView(lookup, task.dependencies, task.level) };
    if (run.options.signal) ctx.signal = run.options.signal;
    const elements = elementsAt(session, task.level) as Element[];
    const prepared: PreparedTask = { task, elements, ctx, outcomes: [], keys: undefined, missing: undefined };
    const cache = run.cache;
    if (cache && (cache.read || cache.write) && metric.cacheKey) {
      // Keys are computed once, here: a key that cannot be built is that element's failure.
      prepared.keys = elements.map((element, i) => {
        try {
          return metric.cacheKey?.(element, ctx);
        } catch (error) {
          prepared.outcomes[i] = toError(error);
          return undefined;
        }
      });
      prepared.missing = elements.flatMap((_, i) => (prepared.outcomes[i] === undefined ? [i] : []));
    }
    return prepared;
  }

  async #replay(p: PreparedTask, cache: CacheManager): Promise<void> {
    if (!p.keys || !p.missing) return;
    const hits = await Promise.all(
      p.missing.map(async (i) => {
        const key = p.keys?.[i];
        if (key === undefined) return undefined;
        try {
          return await cache.get(key);
        } catch {
          return undefined; // the cache is an optimisation: a failing read means compute
        }
      }),
    );
    const missing: number[] = [];
    p.missing.forEach((i, k) => {
      const hit = hits[k];
      if (hit) p.outcomes[i] = replayed(hit);
      else missing.push(i);
    });
    p.missing = missing;
  }

  async #record(p: PreparedTask, cache: CacheManager): Promise<void> {
    if (!p.keys) return;
    const writes: Array<Promise<void>> = [];
    for (const i of p.missing ?? []) {
      const key = p.keys[i];
      const outcome = p.outcomes[i];
      let entry: CachedComputation;
      try {
        // Failures and skips are not cached (isSkip after invalidOutcome: a defined `skipped` is then a string).
        if (key === undefined || invalidOutcome(outcome) !== undefined || isSkip(outcome as MetricOutcome)) continue;
        const { value, reasoning, details, evaluation } = outcome as MetricValue;
        entry = { value, recordedAt: new Date().toISOString() };
        if (reasoning !== undefined) entry.reasoning = reasoning;
        if (details !== undefined) entry.details = details;
        if (evaluation !== undefined) entry.evaluation = evaluation;
      } catch {
        continue; // an outcome whose getter throws: the records report it as that element's failure; nothing to cache
      }
      // A failing write loses a replay, not a result: a CacheManager that throws instead of rejecting is caught too
      // (the stage awaits these writes only after its other tasks, so nothing may reject unhandled meanwhile).
      writes.push(Promise.resolve().then(() => cache.set(key, entry)).catch(() => undefined));
    }
    await Promise.all(writes);
  }
}

/**
 * The session's records: the tasks' buckets joined in order, each list allocated once at its final size. Pushed one
 * by one, a 340,000-result list would be reallocated and copied some thirty times (8 MB of large arrays, which count
 * towards the next full garbage collection).
 */
function joinBuckets(sessionId: string, buckets: readonly SessionComputation[]): SessionComputation {
  const joined: SessionComputation = {
    sessionId,
    results: join(buckets.map((b) => b.results)),
    failed: join(buckets.map((b) => b.failed)),
    skipped: join(buckets.map((b) => b.skipped)),
  };
  setUnstoredResultIds(joined, join(buckets.map(unstoredResultIds)));
  return joined;
}

/** The lists one after the other: `concat` sizes its result once and keeps it a packed array. */
function join<T>(lists: readonly (readonly T[])[]): T[] {
  return ([] as T[]).concat(...lists);
}

function mergeComputed(p: PreparedTask, computed: readonly ElementOutcome[]): void {
  if (!p.missing) {
    p.outcomes = computed as ElementOutcome[];
    return;
  }
  p.missing.forEach((i, k) => (p.outcomes[i] = computed[k] ?? new Error('no outcome returned')));
}

function replayed(hit: CachedComputation): MetricOutcome {
  const value: MetricValue = { value: hit.value, details: { ...hit.details, replayed: true } };
  if (hit.reasoning !== undefined) value.reasoning = hit.reasoning;
  if (hit.evaluation !== undefined) value.evaluation = hit.evaluation;
  return value;
}

/** Options written under a telemetry-hub spelling of `key` (`deepeval.AnswerRelevancyMetric` for `deepeval:AnswerRelevancy`). */
function optionsByAlias(
  metricOptions: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined,
  key: string,
): Readonly<Record<string, unknown>> | undefined {
  if (!metricOptions) return undefined;
  for (const [name, options] of Object.entries(metricOptions)) if (aliasKeys(name).includes(key)) return options;
  return undefined;
}
