/**
 * The embedded store: one SQLite file (WAL) through better-sqlite3. Everything is synchronous underneath; each
 * write is one IMMEDIATE transaction of prepared statements, which is what makes bulk writes fast and lets two
 * processes share the file safely.
 */
import { assertStorableIds } from '../storable-ids.js';
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from './driver.js';
import type { MetricDefinition, MetricResult, Session } from '@mce/core';
import { coalesceSessions, planSessionWrite, type SessionHeader } from '@mce/ingest';
import { assembleSession, callRows, headerFromRow, headerRow, serverRows, sessionFilter, type HeaderRow } from '../rows.js';
import { assertDefinitions, missingMetricIds, resultRow, sessionIdsOf, splitByStoredSession, storedResult, validateResults } from '../results.js';
import { planResultQuery, resultFilter, SQLITE_BINDING, type PlannedResultQuery } from '../result-query.js';
import { summariesFromRows, summaryStatement } from '../result-summary.js';
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
} from '../types.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { countsAfterWrite, countsFromRow, COUNTS_SELECT, countValues } from '../session-counts.js';
import { defaultLogger } from '../logger.js';

export interface SqliteStoreOptions {
  logger?: StoreLogger;
}

type Row = Record<string, unknown>;

const HEADER_COLUMNS = `id, start_time AS startTime, end_time AS endTime, service_name AS serviceName,
  app_name AS appName, trace_ids AS traceIds, user_input AS userInput, final_response AS finalResponse, attributes`;

const RESULT_COLUMNS = `r.id, r.name, r.result, r.reasoning, r.evaluation_model AS evaluationModel,
  r.evaluation_prompt_token_count AS evaluationPromptTokenCount,
  r.evaluation_completion_token_count AS evaluationCompletionTokenCount,
  r.evaluation_total_token_count AS evaluationTotalTokenCount, r.evaluation_cost AS evaluationCost, r.timestamp,
  r.of_metric_type AS ofMetricType, r.measures_level AS measuresLevel, r.measures_id AS measuresId,
  r.session_id AS sessionId, r.details,
  m.id AS m_id, m.name AS m_name, m.computed_by AS m_computedBy, m.unit AS m_unit, m.value_range AS m_valueRange,
  m.description AS m_description`;

/**
 * The statement of `queryMetricResults`. Newest first walks the metric_results_computed index backwards (migration 2),
 * sorting only results of equal times by id, and stops at the page's end; a session filter reads metric_results_session.
 */
export function resultQueryStatement(plan: PlannedResultQuery): { sql: string; values: unknown[] } {
  const { where, params } = resultFilter(plan, SQLITE_BINDING);
  return {
    sql: `SELECT ${RESULT_COLUMNS} FROM metric_results r JOIN metrics m ON m.id = r.of_metric_type ${where}
      ORDER BY r.computed_at DESC, r.id LIMIT ? OFFSET ?`,
    values: [...params, plan.limit ?? -1, plan.offset],
  };
}

export class SqliteStore implements KnowledgeGraphStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly logger: StoreLogger;
  private readonly statements = new Map<string, Database.Statement>();

  /** `file` is a path, or `:memory:`. Its directory is created on first use. */
  constructor(file: string, options: SqliteStoreOptions = {}) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.db = new (sqliteDriver<typeof Database>())(file);
    this.db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk when it returns (NORMAL in WAL mode may lose the last commits on a power loss), since
    // a worker acks its messages as soon as the commit returns. One fsync per transaction; writes are batched.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 10000');
    // Bulk upserts touch pages all over the result indexes: a 64 MB page cache keeps them off the disk.
    this.db.pragma('cache_size = -65536');
    // Checkpoint the WAL less often (16 MB instead of 4 MB): hot index pages are copied back once, not per batch.
    this.db.pragma('wal_autocheckpoint = 4000');
    this.logger = options.logger ?? defaultLogger();
  }

  async init(): Promise<void> {
    // Up to date, the store is opened with reads only: taking the write lock here would make every reader (a listing,
    // a lookup) wait for, and fail after, any long write of another process.
    if (this.pendingMigrations() === 0) return;
    this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const migrate = this.db.transaction(() => {
      const applied = new Set(
        (this.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
      );
      for (const m of SQLITE_MIGRATIONS) {
        if (applied.has(m.version)) continue;
        this.db.exec(m.sql);
        this.db
          .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(m.version, m.name, new Date().toISOString());
      }
    });
    migrate.immediate();
  }

  /** Migrations not applied yet (all of them on a new file), read without taking the write lock. */
  private pendingMigrations(): number {
    const table = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").pluck().get();
    if (!table) return SQLITE_MIGRATIONS.length;
    const applied = new Set(this.db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
    return SQLITE_MIGRATIONS.filter((m) => !applied.has(m.version)).length;
  }

  async writeSessions(sessions: readonly Session[]): Promise<void> {
    assertStorableIds(sessions);
    const db = this.db;
    const selectHeader = this.prepare(`SELECT ${HEADER_COLUMNS} FROM sessions WHERE id = ?`);
    const maxSeq = this.prepare(`SELECT
      (SELECT COALESCE(MAX(seq) + 1, 0) FROM calls WHERE session_id = ?) AS calls,
      (SELECT COALESCE(MAX(seq) + 1, 0) FROM mcp_servers WHERE session_id = ?) AS servers`);
    const upsertHeader = this.prepare(`INSERT INTO sessions
      (id, start_time, end_time, service_name, app_name, trace_ids, user_input, final_response, attributes)
      VALUES (@id, @startTime, @endTime, @serviceName, @appName, @traceIds, @userInput, @finalResponse, @attributes)
      ON CONFLICT (id) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time,
        service_name = excluded.service_name, app_name = excluded.app_name, trace_ids = excluded.trace_ids,
        user_input = excluded.user_input, final_response = excluded.final_response, attributes = excluded.attributes`);
    // A stored element keeps its position (seq) and takes the new value.
    const upsertCall = this.prepare(`INSERT INTO calls
      (session_id, id, kind, seq, name, trace_id, parent_id, start_time, end_time, status, payload)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (session_id, id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
        trace_id = excluded.trace_id, parent_id = excluded.parent_id, start_time = excluded.start_time,
        end_time = excluded.end_time, status = excluded.status, payload = excluded.payload`);
    const storedCalls = this.prepare('SELECT payload FROM calls WHERE session_id = ? ORDER BY seq').pluck();
    const removeCall = this.prepare('DELETE FROM calls WHERE session_id = ? AND id = ?');
    // A removed call's results go with it: they measured a call the session no longer has.
    const removeCallResults = this.prepare("DELETE FROM metric_results WHERE session_id = ? AND measures_id = ? AND measures_level <> 'Session'");
    const upsertServer = this.prepare(`INSERT INTO mcp_servers (session_id, name, seq, transport, payload)
      VALUES (@sessionId, @name, @seq, @transport, @payload)
      ON CONFLICT (session_id, name) DO UPDATE SET transport = excluded.transport, payload = excluded.payload`);
    const storedServers = this.prepare('SELECT name FROM mcp_servers WHERE session_id = ?').pluck();
    const setCounts = this.prepare(`UPDATE sessions SET mas_call_count = ?, agent_call_count = ?, task_call_count = ?,
      llm_call_count = ?, tool_call_count = ?, mcp_server_count = ? WHERE id = ?`);

    const write = db.transaction((batch: Session[]) => {
      for (const incoming of batch) {
        const stored = selectHeader.get(incoming.id) as Row | undefined;
        // A session stored already: the part is reconciled with its calls (merge.ts); a new one is written as it is.
        const before = stored ? assembleSession(sqliteHeader(stored), storedCalls.all(incoming.id) as string[], []) : undefined;
        const { header, session, removed } = planSessionWrite(before, incoming);
        const row = headerRow(header);
        upsertHeader.run({ ...row, traceIds: JSON.stringify(row.traceIds) });
        for (const id of removed) {
          removeCall.run(session.id, id);
          removeCallResults.run(session.id, id);
        }
        const next = (stored ? maxSeq.get(session.id, session.id) : { calls: 0, servers: 0 }) as { calls: number; servers: number };
        const calls = callRows(session, next.calls);
        const servers = serverRows(session, next.servers);
        const counts = countsAfterWrite(before, stored ? (storedServers.all(session.id) as string[]) : [], { removed, calls, servers });
        for (const c of calls) {
          // Positional: binding by name costs a third more per row, and calls are most of an ingest.
          upsertCall.run(c.sessionId, c.id, c.kind, c.seq, c.name, c.traceId, c.parentId, c.startTime, c.endTime, c.status, c.payload);
        }
        for (const server of servers) upsertServer.run(server);
        setCounts.run(...countValues(counts), session.id);
      }
    });
    write.immediate(coalesceSessions(sessions));
  }

  async getSession(id: string): Promise<Session | undefined> {
    return (await this.getSessions([id])).get(id);
  }

  async getSessions(ids: readonly string[]): Promise<Map<string, Session>> {
    const out = new Map<string, Session>();
    const read = this.db.transaction(() => {
      for (const id of new Set(ids)) {
        const stored = this.prepare(`SELECT ${HEADER_COLUMNS} FROM sessions WHERE id = ?`).get(id) as Row | undefined;
        if (!stored) continue;
        const calls = this.prepare('SELECT payload FROM calls WHERE session_id = ? ORDER BY seq').pluck().all(id) as string[];
        const servers = this.prepare('SELECT payload FROM mcp_servers WHERE session_id = ? ORDER BY seq').pluck().all(id) as string[];
        out.set(id, assembleSession(sqliteHeader(stored), calls, servers));
      }
    });
    read();
    return out;
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    const { where, params } = sessionFilter(options, () => '?');
    // The counts are the session row's (migration 3), kept by writeSessions: nothing is counted here.
    const sql = `SELECT id, start_time AS startTime, end_time AS endTime, service_name AS serviceName, app_name AS appName,
        ${COUNTS_SELECT}
      FROM sessions s ${where} ORDER BY start_time DESC, id LIMIT ? OFFSET ?`;
    const rows = this.prepare(sql).all(...params, options.limit ?? -1, options.offset ?? 0) as Row[];
    return rows.map((r) => {
      const summary: SessionSummary = {
        id: r.id as string,
        startTime: r.startTime as number,
        endTime: r.endTime as number,
        counts: countsFromRow(r),
      };
      if (r.serviceName !== null) summary.serviceName = r.serviceName as string;
      if (r.appName !== null) summary.appName = r.appName as string;
      return summary;
    });
  }

  async listSessionIds(options: ListSessionsOptions = {}): Promise<string[]> {
    const { where, params } = sessionFilter(options, () => '?');
    const sql = `SELECT id FROM sessions s ${where} ORDER BY start_time DESC, id LIMIT ? OFFSET ?`;
    return this.prepare(sql).pluck().all(...params, options.limit ?? -1, options.offset ?? 0) as string[];
  }

  async sessionExists(ids: readonly string[]): Promise<Set<string>> {
    return this.storedSessions(ids);
  }

  private storedSessions(ids: readonly string[]): Set<string> {
    const found = new Set<string>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500);
      const rows = this.db
        .prepare(`SELECT id FROM sessions WHERE id IN (${chunk.map(() => '?').join(',')})`)
        .pluck()
        .all(...chunk) as string[];
      for (const id of rows) found.add(id);
    }
    return found;
  }

  async writeMetricResults(
    definitions: readonly MetricDefinition[],
    results: readonly MetricResult[],
  ): Promise<WriteResultsOutcome> {
    assertDefinitions(definitions);
    const db = this.db;
    const upsertMetric = this.prepare(`INSERT INTO metrics (id, name, computed_by, unit, value_range, description)
      VALUES (@id, @name, @computedBy, @unit, @valueRange, @description)
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, computed_by = excluded.computed_by, unit = excluded.unit,
        value_range = excluded.value_range, description = excluded.description`);
    const upsertOne = this.prepare(upsertResultsSql(1));
    const upsertMany = this.prepare(upsertResultsSql(ROWS_PER_INSERT));
    const knownMetric = this.prepare('SELECT 1 FROM metrics WHERE id = ?').pluck();

    const write = db.transaction(() => {
      const known = new Set(definitions.map((d) => d.id));
      for (const id of missingMetricIds(definitions, results)) if (knownMetric.get(id)) known.add(id);
      const validated = validateResults(results, known, this.logger);
      // Checked inside the IMMEDIATE transaction (single writer): no deletion can come between the check and the write.
      const stored = this.storedSessions(sessionIdsOf(validated.valid));
      const { kept: valid, rejected: unstored } = splitByStoredSession(validated.valid, stored, this.logger);
      const rejected = [...validated.rejected, ...unstored];
      for (const d of definitions) upsertMetric.run({ ...d, description: d.description ?? null });
      // Multi-row statements with positional parameters: a fifth fewer CPU cycles per result than one row each.
      const rows = valid.map(resultValues);
      let i = 0;
      for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) upsertMany.run(rows.slice(i, i + ROWS_PER_INSERT).flat());
      for (; i < rows.length; i++) upsertOne.run(rows[i]);
      return { written: valid.length, rejected };
    });
    return write.immediate();
  }

  async deleteMetricResults(results: ReadonlyArray<{ sessionId: string; id: string }>): Promise<number> {
    if (results.length === 0) return 0;
    const remove = this.prepare('DELETE FROM metric_results WHERE id = ? AND session_id = ?');
    const run = this.db.transaction(() => results.reduce((n, r) => n + remove.run(r.id, r.sessionId).changes, 0));
    return run.immediate();
  }

  async getMetricResults(sessionId: string, query: MetricResultsQuery = {}): Promise<StoredMetricResult[]> {
    const where = ['r.session_id = ?'];
    const params: unknown[] = [sessionId];
    if (!query.recursive) {
      where.push(`r.measures_level = 'Session' AND r.measures_id = ?`);
      params.push(sessionId);
    }
    if (query.metricNames) {
      if (query.metricNames.length === 0) return [];
      where.push(`r.name IN (${query.metricNames.map(() => '?').join(',')})`);
      params.push(...query.metricNames);
    }
    const rows = this.db
      .prepare(`SELECT ${RESULT_COLUMNS} FROM metric_results r JOIN metrics m ON m.id = r.of_metric_type
        WHERE ${where.join(' AND ')} ORDER BY r.computed_at DESC, r.id`)
      .all(...params) as Row[];
    return rows.map(storedResult);
  }

  async queryMetricResults(query: ResultQuery = {}): Promise<StoredMetricResult[]> {
    const plan = planResultQuery(query);
    if (!plan) return [];
    const { sql, values } = resultQueryStatement(plan);
    return (this.prepare(sql).all(...values) as Row[]).map(storedResult);
  }

  async summarizeMetricResults(query: ResultSummaryQuery = {}): Promise<ResultSummary[]> {
    const plan = planResultQuery(query);
    if (!plan) return [];
    const { text, values } = summaryStatement(plan, SQLITE_BINDING);
    return summariesFromRows(this.prepare(text).all(...values) as Row[]);
  }

  async deleteSessions(ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    // Each table by its session key. Calls and MCP servers would also go by cascade (better-sqlite3 enforces foreign
    // keys), but a connection may have turned that off: the deletion does not depend on it.
    const removeResults = this.prepare('DELETE FROM metric_results WHERE session_id = ?');
    const removeCalls = this.prepare('DELETE FROM calls WHERE session_id = ?');
    const removeServers = this.prepare('DELETE FROM mcp_servers WHERE session_id = ?');
    const removeSession = this.prepare('DELETE FROM sessions WHERE id = ?');
    const run = this.db.transaction(() =>
      unique.filter((id) => {
        removeResults.run(id);
        removeCalls.run(id);
        removeServers.run(id);
        return removeSession.run(id).changes > 0;
      }),
    );
    return run.immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Prepared once per store: preparing a multi-row INSERT costs more than running it. */
  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** Rows per multi-row INSERT of results (16 parameters each, far below SQLite's limit). */
const ROWS_PER_INSERT = 50;

const RESULT_INSERT_COLUMNS = `id, name, result, reasoning, evaluation_model, evaluation_prompt_token_count,
  evaluation_completion_token_count, evaluation_total_token_count, evaluation_cost, timestamp, computed_at,
  of_metric_type, measures_level, measures_id, session_id, details`;

/** Upsert of `rows` results, idempotent on the id (rows are applied in order, so a later one wins). */
function upsertResultsSql(rows: number): string {
  const tuple = `(${Array(16).fill('?').join(', ')})`;
  return `INSERT INTO metric_results (${RESULT_INSERT_COLUMNS}) VALUES ${Array(rows).fill(tuple).join(', ')}
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, result = excluded.result, reasoning = excluded.reasoning,
      evaluation_model = excluded.evaluation_model,
      evaluation_prompt_token_count = excluded.evaluation_prompt_token_count,
      evaluation_completion_token_count = excluded.evaluation_completion_token_count,
      evaluation_total_token_count = excluded.evaluation_total_token_count,
      evaluation_cost = excluded.evaluation_cost, timestamp = excluded.timestamp, computed_at = excluded.computed_at,
      of_metric_type = excluded.of_metric_type, measures_level = excluded.measures_level,
      measures_id = excluded.measures_id, session_id = excluded.session_id, details = excluded.details`;
}

/** A result's values in the column order of RESULT_INSERT_COLUMNS. */
function resultValues(result: MetricResult): unknown[] {
  const r = resultRow(result);
  return [
    r.id, r.name, r.result, r.reasoning, r.evaluationModel, r.evaluationPromptTokenCount,
    r.evaluationCompletionTokenCount, r.evaluationTotalTokenCount, r.evaluationCost, r.timestamp, r.computedAt,
    r.ofMetricType, r.measuresLevel, r.measuresId, r.sessionId, r.details,
  ];
}

function sqliteHeader(row: Row): SessionHeader {
  return headerFromRow({ ...row, traceIds: JSON.parse(row.traceIds as string) as string[] } as HeaderRow);
}

