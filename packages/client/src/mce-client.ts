/**
 * MCEClient (SPEC §6): the library façade over the engine, the knowledge-graph store and trace ingestion.
 *
 *   await using client = await MCEClient.open();
 *   await client.computeAndStore('session-id');
 *   const results = await client.getMetrics('session-id', { metricIds: ['Duration'], recursive: true });
 */
import { installHint } from './plugins/known-providers.js';
import {
  MetricEngine,
  MetricSelectionError,
  SessionNotFoundError,
  elementCount,
  likelyMetric,
  toMetricResult,
  toResultRecord,
  type CacheManager,
  type DataProvider,
  type ExecutionPlan,
  type MetricDefinition,
  type MetricProvider,
  type MetricResult,
  type ResultRecord,
  type Session,
  type SessionComputation,
  unstoredResultIds,
} from '@mce/core';
import { NATIVE_PROVIDER_REF, defaultMetricSelection, nativeProvider } from '@mce/provider-native';
import { openMetricCache } from './cache/index.js';
import { loadProviderSet, type DeferredPackage } from './plugins/load-providers.js';
import { checkConfiguredSelection } from './config/check-selection.js';

export { checkConfiguredSelection };
import { defaultLogger } from '@mce/store';
import { MCEClientConfig, checkPriceRefreshEnv } from './config/client-config.js';
import { loadMceConfig, type MceConfig, type MetricSelection } from './config/mce-config.js';
import { loadPersistedEvalMode, userConfigPath } from './config/eval-mode.js';
import { streamSessions, type FileOutcome, type IngestWarning, type SkippedFile, type TraceFormat } from '@mce/ingest';
import type { KnowledgeGraphStore, ResultCursor, ResultQuery, ResultSummary, ResultSummaryQuery, StoredMetricResult, StoreLogger, WriteResultsOutcome } from '@mce/store';
// Not from the store's index: that one loads the PostgreSQL and Neo4j drivers (store/open.ts).
import { openStore } from '@mce/store';
import { storeTargetFromEnv } from '@mce/store';

export interface MCEClientOptions {
  /** The configuration; default: `mce_config.yaml` (MCE_CONFIG or the working directory) with env overrides. */
  config?: MceConfig;
  /**
   * Where the configuration, the store selection and the eval-mode file are read from; default: `process.env`. The
   * judge and the price refresh are per process and read `process.env` (see `setDefaultJudge`).
   */
  env?: NodeJS.ProcessEnv;
  /** A store to use (left open by `close()`); default: the one `config.store.url` / the environment names. */
  store?: KnowledgeGraphStore;
  /** The configured store must exist already (an SQLite file is not created): for work that only reads it. */
  existingStore?: boolean;
  /** Providers registered after the native one. */
  providers?: readonly MetricProvider[];
  /** A record/replay cache; default: the `cache:` section (SQLite file); false: none. */
  cache?: CacheManager | false;
  /** Warnings (rejected results, providers left out) and, at debug level, what the client loaded and computed. */
  logger?: ClientLogger;
}

/** pino-compatible; `debug` is optional (a StoreLogger will do). */
export interface ClientLogger extends StoreLogger {
  debug?(details: object, message: string): void;
}

export interface ComputeRequest {
  /** Metrics per level, or a list of names computed at every level they support; default: the configured set. */
  metrics?: MetricSelection | readonly string[];
  recursive?: boolean;
  /** Re-using a run id makes a re-run overwrite its results instead of adding new ones. */
  runId?: string;
}

export interface GetMetricsOptions {
  /** Metric names or `provider:name`; default every stored result. */
  metricIds?: readonly string[];
  /** The session's calls' results too (default false: the session's own). */
  recursive?: boolean;
  /**
   * A registered metric of `metricIds` with no stored result for the session is computed now (default true; false:
   * stored results only, as `mce kg metric get` and the REST API read them). Its results are returned after the
   * stored ones; failed and skipped ones are not results, `onComputed` has them.
   */
  computeMissing?: boolean;
  /** Store what was computed now (default false: only returned). */
  store?: boolean;
  /** Told of each computation made for missing metrics, and whether it was stored: how a caller learns it happened. */
  onComputed?: (computation: SessionComputation, stored: boolean) => void;
}

/** A page of a session's stored results (`getStoredMetricsPage`). */
export interface StoredMetricsPage {
  /** Metric names or `provider:name`; default every stored result. */
  metricIds?: readonly string[];
  /** The session's calls' results too (default false: the session's own). */
  recursive?: boolean;
  limit: number;
  offset?: number;
  /** After this result (the last of the page before): a page costs its own rows, not every row before it too. */
  after?: ResultCursor;
}

export interface IngestSummary {
  sessionIds: string[];
  /** Calls (ontology elements: MAS, agent, task, LLM and tool calls) read; spans that are no call are not counted. */
  calls: number;
  warnings: IngestWarning[];
  /** The files skipped as unreadable (with `skipUnreadable`), with the error of each; nothing of them was stored. */
  skipped: SkippedFile[];
}

/** A store seen as the engine's DataProvider. */
export function storeDataProvider(store: KnowledgeGraphStore): DataProvider {
  // One batched read (one snapshot) for all ids; the sessions in the order asked, unknown ones left out.
  const fetch = async (ids: readonly string[]) => {
    const found = await store.getSessions(ids);
    return ids.flatMap((id) => found.get(id) ?? []);
  };
  return { retrieve: (id) => store.getSession(id), fetch, fetchBatch: fetch };
}

/** Only `MCEClient.open` has it: the constructor refuses to be called directly. */
const OPENING: unique symbol = Symbol('MCEClient.open');

export class MCEClient implements AsyncDisposable {
  readonly engine: MetricEngine;
  readonly config: MceConfig;
  readonly #store: KnowledgeGraphStore;
  readonly #ownsStore: boolean;
  readonly #cache: CacheManager | undefined;
  readonly #log: ClientLogger | undefined;
  /** Discovered packages registered from their catalogues: imported when a computation selects one of their metrics. */
  #deferred: readonly DeferredPackage[] = [];
  #closed = false;

  private constructor(
    opening: typeof OPENING,
    config: MceConfig,
    store: KnowledgeGraphStore,
    ownsStore: boolean,
    providers: readonly MetricProvider[],
    cache: CacheManager | undefined,
    log: ClientLogger | undefined,
  ) {
    // The seed's Python façade is built with `MCEClient()`; here opening a store is asynchronous, so say where to go.
    if (opening !== OPENING) {
      throw new TypeError('MCEClient has no public constructor: use `const client = await MCEClient.open(options)` (it opens the store and loads the providers)');
    }
    this.config = config;
    this.#log = log;
    this.#store = store;
    this.#ownsStore = ownsStore;
    this.#cache = cache;
    const strategy = config.engine.strategy ?? 'asyncio';
    // The async pool mostly waits on judge calls (the judge has its own process-wide limit), so it may be wide.
    const maxWorkers = config.engine.maxWorkers ?? (strategy === 'asyncio' ? 16 : undefined);
    const timeout = config.engine.metricTimeoutMs;
    this.engine = new MetricEngine({ strategy, ...(maxWorkers ? { maxWorkers } : {}), ...(timeout !== undefined ? { metricTimeoutMs: timeout } : {}) });
    this.engine.registerProvider(nativeProvider, NATIVE_PROVIDER_REF);
    // A bare name a plugin shares with the built-in catalog means the built-in metric (the plugin's is provider:name).
    this.engine.registry.preferProvider(nativeProvider.name);
    this.engine.registry.unknownHint = installHint;
    for (const provider of providers) this.engine.registerProvider(provider);
    this.engine.setDataProvider(storeDataProvider(store));
    this.engine.setCacheManager(cache);
  }

  /** Opens the configured store (creating/migrating it) and the engine with every provider registered. */
  static async open(options: MCEClientOptions = {}): Promise<MCEClient> {
    const env = options.env ?? process.env;
    checkPriceRefreshEnv(); // the price refresh is per process, like the judge: it reads process.env
    const config = options.config ?? MCEClientConfig.fromEnv(env).applyTo(loadMceConfig(undefined, env));
    loadPersistedEvalMode(userConfigPath(env));
    // The store first: a store that must exist and does not leaves nothing behind (no cache file either).
    let store = options.store;
    if (!store) {
      // Through the environment's store selection either way: a Neo4j URL takes its credentials from NEO4J_USERNAME etc.
      const target = storeTargetFromEnv(config.store.url ? { ...env, MCE_STORE_URL: config.store.url } : env);
      store = await openStore(target, { ...(options.logger ? { logger: options.logger } : {}), ...(options.existingStore ? { mustExist: true } : {}) });
    }
    let cache: CacheManager | undefined;
    let plugins: MetricProvider[];
    let deferred: DeferredPackage[];
    const log = options.logger;
    try {
      cache = options.cache === false ? undefined : (options.cache ?? openMetricCache(config.cache, (message) => log?.debug?.({ event: 'cache-off' }, message)));
      const loaded = await loadProviderSet(config, (message) => (log ?? defaultLogger()).warn({ event: 'provider-left-out' }, message));
      plugins = loaded.map((l) => l.provider);
      deferred = [...new Set(loaded.flatMap((l) => (l.deferred ? [l.deferred] : [])))];
      log?.debug?.(
        { config: config.source ?? null, store: store.kind, cache: cache ? (config.cache.path ?? '.mce/cache.db') : null, providers: loaded.map((l) => ({ name: l.provider.name, version: l.provider.version, origin: l.origin })) },
        'client opened',
      );
    } catch (error) {
      if (options.cache === undefined) await (cache as { close?: () => unknown } | undefined)?.close?.();
      if (!options.store) await store.close();
      throw error;
    }
    const client = new MCEClient(OPENING, config, store, options.store === undefined, [...plugins, ...(options.providers ?? [])], cache, log);
    client.#deferred = deferred;
    try {
      checkConfiguredSelection(client.config, client.engine);
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  get store(): KnowledgeGraphStore {
    return this.#store;
  }

  /** The configured metric selection (mce_config.yaml `metrics:`), else the default deterministic set. */
  selection(): MetricSelection {
    return this.config.metrics ?? defaultMetricSelection();
  }

  /** The ontology `Metric` definitions of every registered metric. */
  metricDefinitions(): MetricDefinition[] {
    return this.engine.registry.list().map(({ key, metric }) => ({
      id: key,
      name: metric.metadata.name,
      computedBy: metric.metadata.provider,
      unit: metric.metadata.unit,
      valueRange: metric.metadata.valueRange,
      description: metric.metadata.description,
    }));
  }

  /** The tasks a compute with this request would run, by stage (the configured selection and its dependencies). */
  plan(request: ComputeRequest = {}): ExecutionPlan {
    return this.engine.plan(this.#computeOptions(request));
  }

  /** Compute sessions already in memory (files), without storing anything. */
  async compute(sessions: readonly Session[], request: ComputeRequest = {}): Promise<SessionComputation[]> {
    await this.#loadProvidersFor(request);
    const started = performance.now();
    const computations = await this.engine.computeLoadedSessions(sessions, this.#computeOptions(request));
    this.#logComputed(computations, started);
    return computations;
  }

  /** Compute stored sessions, without storing the results. Unknown ids → SessionNotFoundError. */
  async computeStored(sessionIds: string | readonly string[], request: ComputeRequest = {}): Promise<SessionComputation[]> {
    const ids = typeof sessionIds === 'string' ? [sessionIds] : sessionIds;
    await this.#loadProvidersFor(request);
    const started = performance.now();
    const computations = await this.engine.computeSessionsBatch(ids, this.#computeOptions(request));
    this.#logComputed(computations, started);
    return computations;
  }

  /** At debug level, one line per session computed: its counts and the batch's time. */
  #logComputed(computations: readonly SessionComputation[], started: number): void {
    if (!this.#log?.debug) return;
    const ms = Math.round(performance.now() - started);
    for (const c of computations) {
      this.#log.debug({ session: c.sessionId, results: c.results.length, failed: c.failed.length, skipped: c.skipped.length, batchMs: ms }, 'session computed');
    }
  }

  /**
   * Compute stored sessions and write every result in one flush. Unknown ids → SessionNotFoundError; so is a session
   * deleted while it was computed (thrown after the other sessions' results are written; none of its own are).
   */
  async computeAndStore(sessionIds: string | readonly string[], request: ComputeRequest = {}): Promise<SessionComputation[]> {
    const computations = await this.computeStored(sessionIds, request);
    await this.storeComputations(computations);
    return computations;
  }

  /**
   * Write the successful results of computations. Failed and skipped ones are never stored, and a result their run
   * stored earlier under the same id (a re-run of a run id, a retried message) is removed first: a metric that fails
   * now must not keep its earlier score under this run.
   */
  async storeComputations(computations: readonly SessionComputation[]): Promise<WriteResultsOutcome> {
    const outcome = await this.writeComputations(computations);
    // After the other sessions' results are written: the caller learns that these sessions are gone.
    const gone = unstoredSessionsOf(outcome);
    if (gone.length > 0) throw new SessionNotFoundError(gone);
    return outcome;
  }

  /**
   * `storeComputations` for a caller that settles each session on its own (the worker): results of a session deleted
   * while it was computed are not stored and are reported in `rejected` (see `unstoredSessionsOf`), not thrown.
   */
  async writeComputations(computations: readonly SessionComputation[]): Promise<WriteResultsOutcome> {
    await this.withdrawResults(computations.flatMap(unstoredResultsOf));
    return this.#store.writeMetricResults(this.metricDefinitions(), computations.flatMap(metricResultsOf));
  }

  /** Removes results from the store: those computations did not produce this time (`unstoredResultsOf`). */
  async withdrawResults(results: ReadonlyArray<{ sessionId: string; id: string }>): Promise<number> {
    return results.length > 0 ? this.#store.deleteMetricResults(results) : 0;
  }

  /** Stored results of a session (its own; with `recursive`, its calls' too), newest first. */
  async getMetrics(sessionId: string, options: GetMetricsOptions = {}): Promise<ResultRecord[]> {
    // An unknown session, or a metric name neither registered nor stored for the session (at any level), is an error,
    // not an empty answer.
    if ((await this.#store.sessionExists([sessionId])).size === 0) throw new SessionNotFoundError([sessionId]);
    // `provider:name` asks for one provider's results of that name (the stores keep results by metric name).
    const wanted = options.metricIds?.map((id) => {
      const colon = id.indexOf(':');
      return colon > 0 ? { id, name: id.slice(colon + 1), provider: id.slice(0, colon) } : { id, name: id, provider: undefined };
    });
    const stored = await this.#store.getMetricResults(sessionId, {
      recursive: options.recursive ?? false,
      ...(wanted ? { metricNames: [...new Set(wanted.map((w) => w.name))] } : {}),
    });
    const records = stored.map(({ result, metric }) => toResultRecord(result, metric));
    if (!wanted) return records;
    const matches = (w: (typeof wanted)[number], r: ResultRecord) => r.name === w.name && (w.provider === undefined || r.provider === w.provider);
    let unknown = wanted.filter((w) => !this.engine.registry.has(w.id) && !records.some((r) => matches(w, r)));
    if (unknown.length > 0 && !options.recursive) {
      // Stored at the session's calls rather than the session itself is stored all the same.
      const anywhere = (await this.#store.getMetricResults(sessionId, { recursive: true, metricNames: unknown.map((w) => w.name) })).map(
        ({ result, metric }) => toResultRecord(result, metric),
      );
      unknown = unknown.filter((w) => !anywhere.some((r) => matches(w, r)));
    }
    if (unknown.length > 0) throw this.#unknownMetrics(unknown.map(({ id }) => id));
    const found = records.filter((r) => wanted.some((w) => matches(w, r)));
    if (options.computeMissing === false) return found;
    // As the seed's façade is used: a registered metric asked for and never stored for the session is computed now.
    const missing = wanted.filter((w) => {
      const entry = this.engine.registry.find(w.id);
      return entry && !found.some((r) => matches(w, r)) && (options.recursive || entry.metric.metadata.levels.includes('Session'));
    });
    if (missing.length === 0) return found;
    const [computation] = await this.computeStored(sessionId, { metrics: missing.map((w) => w.id), recursive: options.recursive ?? false });
    if (!computation) return found; // deleted meanwhile: what was stored is all there is
    if (options.store) await this.storeComputations([computation]);
    options.onComputed?.(computation, options.store === true);
    return [...found, ...computation.results.filter((r) => missing.some((w) => matches(w, r)))];
  }

  /**
   * Stored results across sessions, newest first (ties by id), filtered and paged as `query` says (see `ResultQuery`);
   * each with its Metric, the session and what it measures being the result's `sessionId` and `measures`. A metric
   * named (`name` or `provider:name`) that is neither registered nor stored is an error (MetricSelectionError, naming
   * the likely one), not an empty answer.
   */
  /**
   * A page of a session's stored results, newest first (ties by id): what `getMetrics` with `computeMissing: false`
   * answers whole, read through the store's result query so that a big session is read a page at a time. An unknown
   * session, or a metric neither registered nor stored for the session, is an error as there.
   */
  async getStoredMetricsPage(sessionId: string, options: StoredMetricsPage): Promise<ResultRecord[]> {
    if ((await this.#store.sessionExists([sessionId])).size === 0) throw new SessionNotFoundError([sessionId]);
    const metrics = options.metricIds && [...new Set(options.metricIds)];
    if (metrics) {
      const unknown: string[] = [];
      for (const metric of metrics) {
        if (!this.engine.registry.has(metric) && (await this.#store.queryMetricResults({ metrics: [metric], sessionIds: [sessionId], limit: 1 })).length === 0) unknown.push(metric);
      }
      if (unknown.length > 0) throw this.#unknownMetrics(unknown);
    }
    const page = await this.#store.queryMetricResults({
      sessionIds: [sessionId],
      ...(options.recursive ? {} : { levels: ['Session'] }),
      ...(metrics ? { metrics } : {}),
      limit: options.limit,
      offset: options.offset ?? 0,
      ...(options.after ? { after: options.after } : {}),
    });
    return page.map(({ result, metric }) => toResultRecord(result, metric));
  }

  async queryResults(query: ResultQuery = {}): Promise<StoredMetricResult[]> {
    await this.#assertKnownMetrics(query.metrics);
    return this.#store.queryMetricResults(query);
  }

  /**
   * Figures of the stored results `query` matches (see `ResultSummaryQuery`): per Metric and level measured, the count,
   * mean, min, max, nearest-rank p50/p90/p95, distinct sessions and first/last timestamp. A metric neither registered
   * nor stored is an error, as for `queryResults`.
   */
  async summarizeResults(query: ResultSummaryQuery = {}): Promise<ResultSummary[]> {
    await this.#assertKnownMetrics(query.metrics);
    return this.#store.summarizeMetricResults(query);
  }

  /** MetricSelectionError, naming the likely one, for metrics asked for that are neither registered nor stored. */
  async #assertKnownMetrics(metrics: readonly string[] = []): Promise<void> {
    const unknown: string[] = [];
    for (const metric of new Set(metrics)) {
      // Stored by a provider this client does not load is stored all the same: one row of it is enough to know (a
      // name stored nowhere is looked for through every result, which only a misspelt one costs).
      if (!this.engine.registry.has(metric) && (await this.#store.queryMetricResults({ metrics: [metric], limit: 1 })).length === 0) unknown.push(metric);
    }
    if (unknown.length > 0) throw this.#unknownMetrics(unknown);
  }

  /** Metric names asked for that are neither registered nor stored, each with the likely one. */
  #unknownMetrics(ids: readonly string[]): MetricSelectionError {
    return new MetricSelectionError(ids.map((id) => ({ metric: id, level: 'any', problem: `Unknown metric "${id}"${likelyMetric(this.engine.registry, id)}` })));
  }

  /**
   * Removes stored sessions, each with its calls, MCP servers and results, in one transaction (Metric definitions
   * stay). Returns the ids that were stored, in the order given; an id not stored is no error. A computation of one of
   * them still running stores its results afterwards: deleting the session again removes them.
   */
  deleteSessions(sessionIds: string | readonly string[]): Promise<string[]> {
    return this.#store.deleteSessions(typeof sessionIds === 'string' ? [sessionIds] : sessionIds);
  }

  /**
   * Stream trace files into the store in batches (flat memory for JSON Lines). Returns the session ids written, in
   * first-seen order.
   */
  async ingest(
    paths: readonly string[],
    options: {
      format?: TraceFormat;
      batchSize?: number;
      onBatch?: (sessions: number, calls: number) => void;
      /** Called as each file is opened. */
      onFile?: (path: string, index: number) => void;
      /** Skip a file that cannot be read and go on with the others (StreamOptions.skipUnreadable). */
      skipUnreadable?: boolean;
      /** Called when a file has been read whole, or skipped. */
      onFileDone?: (path: string, outcome: FileOutcome) => void;
    } = {},
  ): Promise<IngestSummary> {
    const batchSize = options.batchSize ?? 200;
    // Also bound a batch by elements, so memory stays flat however large the sessions are.
    const batchElements = 5_000;
    const seen = new Set<string>();
    const warnings: IngestWarning[] = [];
    let calls = 0;
    // One stream over all the files: a session whose spans are split across files (within the stream's window) is
    // grouped whole, so its calls keep their agent and MAS attribution.
    const stream = streamSessions(paths, {
      ...(options.format ? { format: options.format } : {}),
      ...(options.onFile ? { onFile: options.onFile } : {}),
      ...(options.skipUnreadable ? { skipUnreadable: true } : {}),
      ...(options.onFileDone ? { onFileDone: options.onFileDone } : {}),
    });
    let batch: Session[] = [];
    let batchCalls = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const sessions = batch;
      batch = [];
      batchCalls = 0;
      await this.#store.writeSessions(sessions);
      options.onBatch?.(sessions.length, sessions.reduce((n, s) => n + elementCount(s), 0));
    };
    const iterator = stream[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Session>;
      try {
        next = await iterator.next();
      } catch (error) {
        // A bad file: the sessions of the files before it are whole (the stream handed them over before its error),
        // so they are stored, and the file's own error is the one reported (should that write fail too, a run after
        // the fix stores everything again: sessions merge by id).
        await flush().catch(() => undefined);
        throw error;
      }
      if (next.done) break;
      const session = next.value;
      const count = elementCount(session);
      calls += count;
      batchCalls += count;
      seen.add(session.id);
      batch.push(session);
      if (batch.length >= batchSize || batchCalls >= batchElements) await flush();
    }
    await flush();
    warnings.push(...stream.warnings.list);
    return { sessionIds: [...seen], calls, warnings, skipped: stream.skipped };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.engine.close();
    await (this.#cache as { close?: () => unknown } | undefined)?.close?.();
    if (this.#ownsStore) await this.#store.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Imports the discovered packages whose metrics the request's plan computes (their catalogues stood in until now).
   * A plan that cannot be made loads nothing: the computation then throws the same error.
   */
  async #loadProvidersFor(request: ComputeRequest): Promise<void> {
    const pending = this.#deferred.filter((d) => !d.settled);
    if (pending.length === 0) return;
    let providers: Set<string>;
    try {
      providers = new Set(this.plan(request).stages.flatMap((stage) => stage.map((task) => task.entry.metric.metadata.provider)));
    } catch {
      return;
    }
    const needed = pending.filter((d) => d.providers.some((p) => providers.has(p.name)));
    const warn = (message: string) => (this.#log ?? defaultLogger()).warn({ event: 'provider-left-out' }, message);
    await Promise.all(needed.map((d) => d.load(this.engine.registry, warn)));
  }

  #computeOptions(request: ComputeRequest) {
    return {
      metrics: request.metrics ?? this.selection(),
      recursive: request.recursive ?? this.config.engine.recursive,
      metricOptions: this.config.metricOptions,
      ...(request.runId ? { runId: request.runId } : {}),
    };
  }
}

/** The ontology MetricResults of a computation's successful results. */
export function metricResultsOf(computation: SessionComputation): MetricResult[] {
  return computation.results.map((r) => toMetricResult(r, computation.sessionId));
}

/** The sessions a write's results were rejected for because they are not stored (deleted while computed). */
export function unstoredSessionsOf(outcome: WriteResultsOutcome): string[] {
  return [...new Set(outcome.rejected.flatMap((r) => (r.unstoredSession === undefined ? [] : [r.unstoredSession])))];
}

/** The results a computation's failed and skipped records would have been, by (session, id) (`unstoredResultIds`). */
export function unstoredResultsOf(computation: SessionComputation): Array<{ sessionId: string; id: string }> {
  return unstoredResultIds(computation).map((id) => ({ sessionId: computation.sessionId, id }));
}

/** Re-exported from core, where it now lives (the reader counts calls too). */
export { elementCount } from '@mce/core';

