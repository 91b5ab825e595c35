/**
 * The knowledge graph on Neo4j through the official driver: nodes labelled with the ontology class names (see
 * `cypher.ts` for the model), rows sent in `UNWIND $rows` batches, integers as Neo4j Integers, nested values as
 * JSON strings, every session closed in `finally`. A batch of sessions is one write transaction: the Session
 * nodes are locked first (in id order), so two writers of the same session merge instead of racing.
 */
import { assertStorableIds } from '@mce/store/adapter';
import { CALL_LISTS, type Call, type CallLevel, type MetricDefinition, type MetricResult, type Session } from '@mce/core';
import { coalesceSessions, planSessionWrite, type SessionHeader } from '@mce/ingest';
import { allCalls, assembleSession, chunks, countsFrom, headerFromRow, headerRow, serverRows, toEpochMs, type HeaderRow } from '@mce/store/adapter';
import {
  assertDefinitions,
  metricFromRow,
  missingMetricIds,
  resultFromRow,
  resultRow,
  sessionIdsOf,
  splitByStoredSession,
  validateResults,
  type MetricRow,
  type ResultRow,
} from '@mce/store/adapter';
import { planResultQuery, type PlannedResultQuery } from '@mce/store/adapter';
import { inSummaryOrder, summaryOf } from '@mce/store/adapter';
import type {
  KnowledgeGraphStore,
  ListSessionsOptions,
  MetricResultsQuery,
  ResultQuery,
  ResultSummary,
  ResultSummaryQuery,
  SessionSummary,
  StoredMetricResult,
  StoreLogger,
  WriteResultsOutcome,
} from '@mce/store';
import { defaultLogger } from '@mce/store/adapter';
import neo4j from 'neo4j-driver';
import * as cypher from './cypher.js';
import { acquireDriver, releaseDriver, type CypherRecordLike, type CypherTransactionLike, type Neo4jDriverLike, type Neo4jTarget } from './driver.js';
import { fromNeo4j, int, properties } from './values.js';

export interface Neo4jStoreOptions {
  /** Database name (`NEO4J_DATABASE`); the server default when absent. */
  database?: string;
  /** Rows per `UNWIND $rows` statement (default 1000). */
  batchSize?: number;
  logger?: StoreLogger;
  /** A driver (or a test double) to use instead of the shared driver for `target`. Not closed by the store. */
  driver?: Neo4jDriverLike;
}

const CALL_KINDS = Object.keys(CALL_LISTS) as CallLevel[];

/** Content fields, possibly large: only in the payload, not copied into properties. */
const CONTENT_FIELDS = new Set(['input', 'output', 'arguments', 'result']);

/** Node properties of a call: its queryable scalars (agentName, toolName, requestModel, …) and the whole call. */
function callNode(sessionId: string, call: Call, seq: number): Record<string, unknown> {
  const scalars = Object.fromEntries(
    Object.entries(call).filter(
      ([k, v]) => !CONTENT_FIELDS.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'),
    ),
  );
  return properties({ ...scalars, sessionId, seq: int(seq), payload: JSON.stringify(call) });
}

function headerNode(header: SessionHeader): Record<string, unknown> {
  return properties({ ...headerRow(header) });
}

/** A Session node's properties as a header (absent properties are what the SQL stores hold as NULL). */
function headerFromNode(node: Record<string, unknown>): SessionHeader {
  return headerFromRow({ ...node, traceIds: node.traceIds ?? [], attributes: node.attributes ?? null } as HeaderRow);
}

function resultNode(result: MetricResult): Record<string, unknown> {
  const row = resultRow(result);
  return properties({
    ...row,
    evaluationPromptTokenCount: int(row.evaluationPromptTokenCount),
    evaluationCompletionTokenCount: int(row.evaluationCompletionTokenCount),
    evaluationTotalTokenCount: int(row.evaluationTotalTokenCount),
    computedAt: int(row.computedAt),
  });
}

export class Neo4jStore implements KnowledgeGraphStore {
  readonly kind = 'neo4j' as const;
  private readonly driver: Neo4jDriverLike;
  private readonly ownsDriver: boolean;
  private readonly batchSize: number;
  private readonly logger: StoreLogger;
  private closed = false;

  private readonly bookmarks: unknown;

  constructor(
    private readonly target: Neo4jTarget,
    private readonly options: Neo4jStoreOptions = {},
  ) {
    this.ownsDriver = !options.driver;
    // One bookmark manager for all of this store's sessions: on a cluster, a read after a write of the same store
    // waits for that write, whichever member serves it (each call opens its own driver session).
    this.bookmarks = neo4j.bookmarkManager();
    this.driver = options.driver ?? acquireDriver(target);
    this.batchSize = options.batchSize ?? 1000;
    this.logger = options.logger ?? defaultLogger();
  }

  async init(): Promise<void> {
    // First contact: an unreachable server fails here at once, not after the transactions' retries (35 s and more).
    const { database } = this.sessionConfig();
    await this.driver.verifyConnectivity?.(database === undefined ? {} : { database });
    for (const statement of cypher.SCHEMA_STATEMENTS) await this.write((tx) => tx.run(statement, {}));
    await this.write((tx) => tx.run(cypher.RECORD_SCHEMA_VERSION, { version: int(cypher.NEO4J_SCHEMA_VERSION) }));
  }

  async writeSessions(sessions: readonly Session[]): Promise<void> {
    assertStorableIds(sessions);
    const batch = coalesceSessions(sessions).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (batch.length === 0) return;
    const ids = batch.map((s) => s.id);
    await this.write(async (tx) => {
      const stored = new Map<string, { header?: SessionHeader; nextCall: number; nextServer: number }>();
      for (const record of (await tx.run(cypher.LOCK_AND_READ_SESSIONS, { ids })).records) {
        const r = fromNeo4j(record.toObject()) as { session: Record<string, unknown>; lastCall: number | null; lastServer: number | null };
        stored.set(r.session.id as string, {
          header: r.session.startTime === undefined ? undefined : headerFromNode(r.session),
          nextCall: r.lastCall === null ? 0 : r.lastCall + 1,
          nextServer: r.lastServer === null ? 0 : r.lastServer + 1,
        });
      }
      // Sessions stored already: each part is reconciled with the stored calls (merge.ts).
      const known = ids.filter((id) => stored.get(id)?.header !== undefined);
      const storedCalls = new Map<string, string[]>(known.map((id) => [id, []]));
      if (known.length > 0) {
        for (const record of (await tx.run(cypher.READ_STORED_CALLS, { ids: known })).records) {
          const r = record.toObject() as { sessionId: string; payload: string };
          storedCalls.get(r.sessionId)?.push(r.payload);
        }
      }
      const writes = batch.map((s) => {
        const header = stored.get(s.id)?.header;
        return planSessionWrite(header ? assembleSession(header, storedCalls.get(s.id) ?? [], []) : undefined, s);
      });
      const removed = writes.flatMap((w) => w.removed.map((id) => ({ sessionId: w.session.id, id })));
      if (removed.length > 0) await this.runBatches(tx, cypher.DELETE_CALLS, removed);
      await this.runBatches(tx, cypher.WRITE_SESSION_HEADERS, writes.map((w) => headerNode(w.header)));

      const callsByKind = new Map<CallLevel, Record<string, unknown>[]>(CALL_KINDS.map((k) => [k, []]));
      const servers: Record<string, unknown>[] = [];
      for (const { session } of writes) {
        const next = stored.get(session.id) ?? { nextCall: 0, nextServer: 0 };
        allCalls(session).forEach((call, i) => callsByKind.get(call.kind)?.push(callNode(session.id, call, next.nextCall + i)));
        for (const row of serverRows(session, next.nextServer)) servers.push(properties({ ...row, seq: int(row.seq) }));
      }
      for (const [kind, rows] of callsByKind) await this.runBatches(tx, cypher.writeCalls(kind), rows);
      await this.runBatches(tx, cypher.WRITE_SERVERS, servers);
      await tx.run(cypher.LINK_PARENTS, { ids });
    });
  }

  async getSession(id: string): Promise<Session | undefined> {
    return (await this.getSessions([id])).get(id);
  }

  async getSessions(ids: readonly string[]): Promise<Map<string, Session>> {
    // One read transaction, the queries of getSession per session.
    return this.read(async (tx) => {
      const out = new Map<string, Session>();
      for (const id of new Set(ids)) {
        const found = (await tx.run(cypher.READ_SESSION, { id })).records[0];
        if (!found) continue;
        const header = headerFromNode(fromNeo4j(found.toObject().session) as Record<string, unknown>);
        const calls = (await tx.run(cypher.READ_CALLS, { id })).records.map((r) => r.toObject().payload as string);
        const servers = (await tx.run(cypher.READ_SERVERS, { id })).records.map((r) => r.toObject().payload as string);
        out.set(id, assembleSession(header, calls, servers));
      }
      return out;
    });
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    const params = listingParams(options);
    const records = await this.read(async (tx) => (await tx.run(cypher.listSessions(options.limit !== undefined), params)).records);
    return records.map((record) => {
      const r = fromNeo4j(record.toObject()) as Record<string, unknown>;
      const kinds = (r.kinds as { kind: string | null; n: number }[]).filter((k) => k.kind !== null) as { kind: string; n: number }[];
      const summary: SessionSummary = {
        id: r.id as string,
        startTime: r.startTime as number,
        endTime: r.endTime as number,
        counts: countsFrom(kinds, r.servers as number),
      };
      if (typeof r.serviceName === 'string') summary.serviceName = r.serviceName;
      if (typeof r.appName === 'string') summary.appName = r.appName;
      return summary;
    });
  }

  async listSessionIds(options: ListSessionsOptions = {}): Promise<string[]> {
    const records = await this.read(async (tx) => (await tx.run(cypher.listSessionIds(options.limit !== undefined), listingParams(options))).records);
    return records.map((record) => record.toObject().id as string);
  }

  async sessionExists(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const records = await this.read(async (tx) => (await tx.run(cypher.SESSIONS_EXIST, { ids: [...ids] })).records);
    return new Set(records.map((r) => r.toObject().id as string));
  }

  async writeMetricResults(
    definitions: readonly MetricDefinition[],
    results: readonly MetricResult[],
  ): Promise<WriteResultsOutcome> {
    assertDefinitions(definitions);
    return this.write(async (tx) => {
      const known = new Set(definitions.map((d) => d.id));
      const missing = missingMetricIds(definitions, results);
      if (missing.length > 0) {
        for (const r of (await tx.run(cypher.KNOWN_METRICS, { ids: missing })).records) known.add(r.toObject().id as string);
      }
      const validated = validateResults(results, known, this.logger);
      // Locked before any result is written, as deleteSessions locks them before deleting: one waits for the other.
      const stored = await this.lockSessions(tx, sessionIdsOf(validated.valid));
      const { kept: valid, rejected } = splitByStoredSession(validated.valid, stored, this.logger);
      await this.runBatches(tx, cypher.WRITE_METRICS, definitions.map((d) => properties({ ...d })));
      for (const chunk of chunks(valid, this.batchSize)) {
        await tx.run(cypher.UNLINK_RESULTS, { ids: chunk.map((r) => r.id) });
        await tx.run(cypher.WRITE_RESULTS, { rows: chunk.map(resultNode) });
      }
      return { written: valid.length, rejected: [...validated.rejected, ...rejected] };
    });
  }

  async deleteMetricResults(results: ReadonlyArray<{ sessionId: string; id: string }>): Promise<number> {
    if (results.length === 0) return 0;
    // Counted inside the work: the driver may run it again after a transient error.
    return this.write(async (tx) => {
      let removed = 0;
      for (const chunk of chunks(results, this.batchSize)) {
        const rows = chunk.map((r) => ({ sessionId: r.sessionId, id: r.id }));
        const [record] = (await tx.run(cypher.DELETE_RESULTS, { rows })).records;
        removed += Number(fromNeo4j(record?.toObject().removed) ?? 0);
      }
      return removed;
    });
  }

  async getMetricResults(sessionId: string, query: MetricResultsQuery = {}): Promise<StoredMetricResult[]> {
    if (query.metricNames && query.metricNames.length === 0) return [];
    const params = { sessionId, recursive: query.recursive ?? false, names: query.metricNames ? [...query.metricNames] : null };
    const records = await this.read(async (tx) => (await tx.run(cypher.READ_RESULTS, params)).records);
    return records.map(storedFromRecord);
  }

  async queryMetricResults(query: ResultQuery = {}): Promise<StoredMetricResult[]> {
    const plan = planResultQuery(query);
    if (!plan) return [];
    const params = { ...filterParams(plan), offset: int(plan.offset), ...(plan.limit !== undefined ? { limit: int(plan.limit) } : {}) };
    const records = await this.read(async (tx) => (await tx.run(cypher.queryResults(plan), params)).records);
    return records.map(storedFromRecord);
  }

  async summarizeMetricResults(query: ResultSummaryQuery = {}): Promise<ResultSummary[]> {
    const plan = planResultQuery(query);
    if (!plan) return [];
    const records = await this.read(async (tx) => (await tx.run(cypher.summarizeResults(plan), filterParams(plan))).records);
    return inSummaryOrder(
      records.map((record) => {
        const { metric, ...figures } = fromNeo4j(record.toObject()) as Record<string, unknown>;
        return summaryOf(metricFromRow({ description: null, ...(metric as object) } as MetricRow), figures);
      }),
    );
  }

  async deleteSessions(ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    // Found inside the work: the driver may run it again after a transient error.
    return this.write(async (tx) => {
      const stored = new Set<string>();
      for (const chunk of chunks(unique, this.batchSize)) {
        // Locked first: a result write holding one of them commits before its results are deleted below.
        await this.lockSessions(tx, chunk);
        await tx.run(cypher.DELETE_SESSION_RESULTS, { ids: chunk });
        await tx.run(cypher.DELETE_SESSION_ELEMENTS, { ids: chunk });
        for (const record of (await tx.run(cypher.DELETE_SESSION_NODES, { ids: chunk })).records) {
          const r = record.toObject() as { id: string; stored: boolean };
          if (r.stored) stored.add(r.id);
        }
      }
      return unique.filter((id) => stored.has(id));
    });
  }

  /** The ids whose session is stored, each Session node write-locked until the transaction ends. */
  private async lockSessions(tx: CypherTransactionLike, ids: readonly string[]): Promise<Set<string>> {
    const stored = new Set<string>();
    for (const chunk of chunks(ids, this.batchSize)) {
      for (const record of (await tx.run(cypher.LOCK_SESSIONS, { ids: chunk })).records) {
        const r = record.toObject() as { id: string; stored: boolean };
        if (r.stored) stored.add(r.id);
      }
    }
    return stored;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsDriver) await releaseDriver(this.target);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async runBatches(tx: CypherTransactionLike, statement: string, rows: readonly Record<string, unknown>[]) {
    for (const chunk of chunks(rows, this.batchSize)) await tx.run(statement, { rows: chunk });
  }

  private session() {
    // The driver is shared with other stores on the same target: closing this one must still stop it answering.
    if (this.closed) throw new Error('the Neo4j store is closed');
    return this.driver.session(this.sessionConfig());
  }

  private async write<T>(work: (tx: CypherTransactionLike) => Promise<T>): Promise<T> {
    const session = this.session();
    try {
      return await session.executeWrite(work);
    } finally {
      await session.close();
    }
  }

  private async read<T>(work: (tx: CypherTransactionLike) => Promise<T>): Promise<T> {
    const session = this.session();
    try {
      return await session.executeRead(work);
    } finally {
      await session.close();
    }
  }

  private sessionConfig(): { database?: string; bookmarkManager: unknown } {
    const database = this.options.database ?? this.target.database;
    return database ? { database, bookmarkManager: this.bookmarks } : { bookmarkManager: this.bookmarks };
  }
}

/** A record of `properties(r) AS result, properties(m) AS metric` as a stored result (absent properties were null). */
function storedFromRecord(record: CypherRecordLike): StoredMetricResult {
  const { result, metric } = fromNeo4j(record.toObject()) as { result: Record<string, unknown>; metric: Record<string, unknown> };
  return {
    result: resultFromRow({ evaluationModel: null, details: null, ...result } as unknown as ResultRow),
    metric: metricFromRow({ description: null, ...metric } as unknown as MetricRow),
  };
}

/** The parameters of the filters of a result query (`cypher.queryResults`, `cypher.summarizeResults`). */
function filterParams(plan: PlannedResultQuery): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  // Times go out as Integers, as computedAt is stored; an integer-valued bound sent as a Float would still compare.
  if (plan.from !== undefined) params.from = int(plan.from);
  if (plan.to !== undefined) params.to = int(plan.to);
  if (plan.after) Object.assign(params, { afterAt: int(plan.after.at), afterId: plan.after.id });
  if (plan.sessionIds) params.sessionIds = plan.sessionIds;
  if (plan.metrics?.names.length) params.names = plan.metrics.names;
  if (plan.metrics?.metricIds.length) params.metricIds = plan.metrics.metricIds;
  if (plan.levels) params.levels = plan.levels;
  if (plan.min !== undefined) params.min = plan.min;
  if (plan.max !== undefined) params.max = plan.max;
  return params;
}

/** The parameters of a session listing (`cypher.listSessions`, `cypher.listSessionIds`). */
function listingParams(options: ListSessionsOptions): Record<string, unknown> {
  return {
    from: options.from === undefined ? null : toEpochMs(options.from),
    to: options.to === undefined ? null : toEpochMs(options.to),
    serviceName: options.serviceName ?? null,
    appName: options.appName ?? null,
    offset: int(options.offset ?? 0),
    ...(options.limit === undefined ? {} : { limit: int(options.limit) }),
  };
}
