/**
 * The knowledge-graph store contract every adapter (SQLite, PostgreSQL, Neo4j) fulfils and the conformance suite
 * checks. Sessions and metric observations use the ontology types of `@mce/core` unchanged.
 */
import type { MetricDefinition, MetricResult, OntologyLevel, Session, ValidationIssue } from '@mce/core';

/** Element counts of a stored session (what `mce sessions list` shows). */
export interface SessionCounts {
  masCalls: number;
  agentCalls: number;
  taskCalls: number;
  llmCalls: number;
  toolCalls: number;
  mcpServers: number;
}

export interface SessionSummary {
  id: string;
  startTime: number;
  endTime: number;
  serviceName?: string;
  appName?: string;
  counts: SessionCounts;
}

export interface ListSessionsOptions {
  /** Sessions that start at or after this time (epoch ms, or a Date / ISO string). */
  from?: number | Date | string;
  /** Sessions that start at or before this time. */
  to?: number | Date | string;
  serviceName?: string;
  appName?: string;
  /** Page size; all when absent. */
  limit?: number;
  offset?: number;
}

export interface MetricResultsQuery {
  /** false (default): results measuring the Session itself; true: also every call of the session. */
  recursive?: boolean;
  /** Keep only results whose `name` is one of these. */
  metricNames?: readonly string[];
}

/**
 * Stored results across sessions (`queryMetricResults`). Every filter given must hold; a list that is given empty
 * matches nothing. Newest first (by `timestamp`), ties by result id.
 */
export interface ResultQuery {
  /**
   * Results of these metrics: a metric name (`Duration`: every provider's) or a Metric id (`mce:Duration`, i.e.
   * `provider:name`: that provider's only).
   */
  metrics?: readonly string[];
  /** Results measuring an element of these ontology classes (`Session`, `LLMCall`, …). */
  levels?: readonly OntologyLevel[];
  sessionIds?: readonly string[];
  /** Results whose `timestamp` is at or after this time (epoch ms, or a Date / ISO string). */
  from?: number | Date | string;
  /** Results whose `timestamp` is at or before this time. */
  to?: number | Date | string;
  /** Results whose value (`result`) is at least this. */
  min?: number;
  /** Results whose value is at most this. */
  max?: number;
  /** Page size; all when absent. */
  limit?: number;
  offset?: number;
  /**
   * Only the results after this one in the listing's order (newest first, ties by id): the last result of the page
   * before. A page then costs its own rows, where an offset also reads every row before it (the last of 500 pages of
   * a session's 500,000 results took 80 times the first, measured on SQLite).
   */
  after?: ResultCursor;
}

/** Where a page of results ends: the `timestamp` and `id` of its last result. */
export interface ResultCursor {
  timestamp: string;
  id: string;
}

/** The filters of a summary (`summarizeMetricResults`): those of `ResultQuery`, without paging. */
export type ResultSummaryQuery = Omit<ResultQuery, 'limit' | 'offset' | 'after'>;

/**
 * The results of one Metric at one level (the ontology class measured) among those a summary query matches.
 * Percentiles are nearest-rank (see result-summary.ts): the smallest value such that at least p% of the values are
 * at most it, always one of the values.
 */
export interface ResultSummary {
  metric: MetricDefinition;
  level: OntologyLevel;
  count: number;
  mean: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p95: number;
  /** Distinct sessions among the results. */
  sessions: number;
  /** The earliest and latest result `timestamp`, ISO 8601 (UTC). */
  first: string;
  last: string;
}

/** A stored observation with the Metric it is of (enough for core's `toResultRecord`). */
export interface StoredMetricResult {
  result: MetricResult;
  metric: MetricDefinition;
}

export interface RejectedResult {
  id: string;
  reasons: ValidationIssue[];
  /** Set when the result was rejected because its session is not stored (deleted while it was computed): that id. */
  unstoredSession?: string;
}

export interface WriteResultsOutcome {
  written: number;
  rejected: RejectedResult[];
}

export interface KnowledgeGraphStore extends AsyncDisposable {
  /** Which adapter this is: `sqlite`, `postgres` or `neo4j`. */
  readonly kind: StoreKind;
  /** Create or migrate the schema (idempotent; `openStore` calls it). */
  init(): Promise<void>;
  /**
   * For a store whose database can exist without the store's tables (PostgreSQL): whether they are there, so a command
   * that only reads refuses a misspelt location instead of answering empty.
   */
  exists?(): Promise<boolean>;
  /** Where the tables live and the URL setting that names it, for that refusal: `PostgreSQL schema x`, `schema=`. */
  readonly location?: { where: string; setting: string };
  /**
   * Write sessions with all their elements in one transaction. Writing a session id again merges: elements are
   * upserted by id, start/end become min/max, trace ids are unioned, other session fields keep existing non-empty
   * values, MCP servers are upserted by name (see `mergeSessions`).
   */
  writeSessions(sessions: readonly Session[]): Promise<void>;
  /** The full session, equal to what was written (merged); undefined when unknown. */
  getSession(id: string): Promise<Session | undefined>;
  /** Several sessions at once (one snapshot where the store has them), by id; unknown ids are absent from the map. */
  getSessions(ids: readonly string[]): Promise<Map<string, Session>>;
  /** Summaries, newest (latest start) first. */
  listSessions(options?: ListSessionsOptions): Promise<SessionSummary[]>;
  /** The ids `listSessions` lists, in its order, without counting their calls (to compute or enqueue all of them). */
  listSessionIds(options?: ListSessionsOptions): Promise<string[]>;
  /** The subset of `ids` that are stored. */
  sessionExists(ids: readonly string[]): Promise<Set<string>>;
  /**
   * Upsert the Metric definitions and the results in one transaction (idempotent on the result id: a result id
   * names one observation of one session — the engine's ids hash the session in — and PostgreSQL keys results by
   * (session id, result id), so the same id under another session is another row there, where SQLite and Neo4j move
   * it). Each result is validated first; one that does not fit the ontology (or points at an unknown Metric) is
   * logged, reported in `rejected` and not saved; the rest is saved. A result is stored only beside its session: one
   * whose session is not stored (deleted while the result was computed) is rejected likewise (`unstoredSession` set),
   * checked inside the write's transaction, so that a concurrent `deleteSessions` comes wholly before (the results
   * are rejected) or after (it removes them) — never an orphan result.
   */
  writeMetricResults(definitions: readonly MetricDefinition[], results: readonly MetricResult[]): Promise<WriteResultsOutcome>;
  /**
   * Optional streaming form of `writeMetricResults` (same validation, same single transaction and outcome): results
   * are handed over as they are computed, so the database ingests one session's results while the next is computed.
   */
  openResultFlush?(definitions: readonly MetricDefinition[]): Promise<ResultFlush>;
  /**
   * Removes results by (session, id); ids not stored are ignored. Returns how many were removed. Used for the ids a
   * re-run did not produce this time (`unstoredResultIds`): a score its metric no longer gives must not stay.
   */
  deleteMetricResults(results: ReadonlyArray<{ sessionId: string; id: string }>): Promise<number>;
  /** Results of a session, newest first (ties by id). */
  getMetricResults(sessionId: string, query?: MetricResultsQuery): Promise<StoredMetricResult[]>;
  /**
   * Results across sessions, filtered and paged (see `ResultQuery`), newest first (ties by id). Each carries its
   * Metric; the session and what it measures are the result's `sessionId` and `measures`.
   */
  queryMetricResults(query?: ResultQuery): Promise<StoredMetricResult[]>;
  /**
   * Figures of the results `query` matches, computed in the database: one row per (Metric id, level measured), ordered
   * by Metric id then level in ontology order; none when nothing matches.
   */
  summarizeMetricResults(query?: ResultSummaryQuery): Promise<ResultSummary[]>;
  /**
   * Removes sessions in one transaction: each with every element (MAS, agent, task, LLM and tool calls, MCP servers)
   * and every result stored under its id (those measuring it or its calls). Metric definitions stay. Returns the ids
   * whose session was stored, each once, in the order asked; an id not stored is no error (results stored under it
   * without a session, which stores of earlier versions could leave, are removed all the same). A computation of the
   * session still running stores nothing afterwards (see `writeMetricResults`). A session written again afterwards
   * is a new one.
   */
  deleteSessions(ids: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

/** One bulk result write in progress (see `openResultFlush`): `add` any number of times, then `commit` or `abort`. */
export interface ResultFlush {
  /** Validates the results and sends the valid ones on; nothing is visible to others before `commit`. */
  add(results: readonly MetricResult[]): void;
  /**
   * Commits everything added; the outcome `writeMetricResults` would have given for all of it at once. (On
   * PostgreSQL, one exception: when an id is added twice and the earlier copy's Metric is not among the flush's
   * definitions, the earlier copy is written last and stays.)
   */
  commit(): Promise<WriteResultsOutcome>;
  /** Rolls everything back (safe to call after a failed commit). */
  abort(): Promise<void>;
}

export type StoreKind = 'sqlite' | 'postgres' | 'neo4j';

/** The minimal logger a store reports rejected results to (pino-compatible). */
export interface StoreLogger {
  warn(details: object, message: string): void;
}
