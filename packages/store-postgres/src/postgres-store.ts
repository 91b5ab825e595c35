/**
 * The shared store on PostgreSQL through `pg` (a pool). Schema created and migrated on start under an advisory
 * lock; bulk session writes are `INSERT … SELECT FROM unnest($1::text[], …) ON CONFLICT`, bulk result writes COPY into
 * a staging table then upsert (see result-copy.ts), one transaction per call, so several worker processes can write at
 * once and lose nothing.
 */
import { assertStorableIds } from '@mce/store/adapter';
import pg from 'pg';
import type { MetricDefinition, MetricResult, Session } from '@mce/core';
import { coalesceSessions, planSessionWrite } from '@mce/ingest';
import {
  allCalls,
  assembleSession,
  callRows,
  chunks,
  countsAfterWrite,
  countsFromRow,
  COUNT_KEYS,
  COUNTS_SELECT,
  headerFromRow,
  headerRow,
  serverRows,
  sessionFilter,
  type HeaderRow,
} from '@mce/store/adapter';
import { assertDefinitions, missingMetricIds, sessionIdsOf, splitByStoredSession, storedResult, validateResults } from '@mce/store/adapter';
import { planResultQuery, POSTGRES_BINDING, resultFilter, type PlannedResultQuery } from '@mce/store/adapter';
import { summariesFromRows, summaryStatement } from '@mce/store/adapter';
import type {
  KnowledgeGraphStore,
  ListSessionsOptions,
  MetricResultsQuery,
  ResultQuery,
  ResultFlush,
  ResultSummary,
  ResultSummaryQuery,
  SessionSummary,
  StoredMetricResult,
  StoreLogger,
  WriteResultsOutcome,
} from '@mce/store';
import { defaultLogger } from '@mce/store/adapter';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { copyResults, ensureResultStage, lockStoredSessions } from './result-copy.js';
import { postgresLimits, withoutNul } from './result-rows.js';
import { PostgresResultFlush } from './result-flush.js';

export interface PostgresStoreOptions {
  /** Schema the tables live in (created when missing; the connection's search_path). Default: `public`. */
  schema?: string;
  /** Pool size (default 4). */
  maxConnections?: number;
  logger?: StoreLogger;
}

/** Rows per statement of a bulk write (keeps each statement's parameters a few MB at most). */
const CHUNK = 5000;
/** First key of the two-key advisory locks this store takes. */
const LOCK_NAMESPACE = 0x6d6365; // "mce"

type Row = Record<string, unknown>;

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Column arrays for `unnest`: one array per key, in the order of `keys`. */
function columns<T extends object>(rows: readonly T[], keys: readonly (keyof T)[]): unknown[][] {
  return keys.map((k) => rows.map((r) => pgText(r[k])));
}

/**
 * PostgreSQL text has no NUL character. One in a text column (a session's input or response, a metric's
 * description) is stored as U+FFFD, as in result rows; JSON payloads escape it and keep it (calls come back from
 * theirs). In an id it would silently make another id, so that is refused (`assertNoNulIds`).
 */
function pgText(value: unknown): unknown {
  return typeof value === 'string' ? withoutNul(value) : value;
}

/**
 * The connection settings with the store's schema as search_path. The URL's own `options` (`?options=-c …`) are kept
 * and the search path added to them: pg lets a URL parameter replace the whole `options` setting, which would
 * silently put the tables in another schema. Spaces and backslashes are escaped for the server's option splitting.
 */
export function withSearchPath(url: string, schema: string): { connectionString: string; options: string } {
  const searchPath = `-c search_path=${quoteIdent(schema).replace(/[\\ ]/g, '\\$&')}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options: searchPath };
  }
  const own = parsed.searchParams.get('options');
  if (own === null) return { connectionString: url, options: searchPath };
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), options: `${own} ${searchPath}` };
}

function assertNoNulIds(session: Session): void {
  const shown = (id: string) => `"${id.replaceAll('\0', '\\0')}"`;
  const refuse = (what: string) => {
    throw new Error(`session ${shown(session.id)}: ${what} contains a NUL character, which PostgreSQL cannot store`);
  };
  if (session.id.includes('\0')) refuse('its id');
  for (const call of allCalls(session)) if (call.id.includes('\0')) refuse(`the id of ${call.kind} ${shown(call.id)}`);
  for (const server of session.mcpServers ?? []) if (server.name.includes('\0')) refuse(`the name of MCP server ${shown(server.name)}`);
}

/** A result joined with its Metric (metric columns prefixed `m_`, see `storedResult`). */
const RESULT_SELECT = `SELECT r.id, r.name, r.result, r.reasoning, r.evaluation_model AS "evaluationModel",
    r.evaluation_prompt_token_count AS "evaluationPromptTokenCount",
    r.evaluation_completion_token_count AS "evaluationCompletionTokenCount",
    r.evaluation_total_token_count AS "evaluationTotalTokenCount", r.evaluation_cost AS "evaluationCost",
    r."timestamp", r.of_metric_type AS "ofMetricType", r.measures_level AS "measuresLevel",
    r.measures_id AS "measuresId", r.session_id AS "sessionId", r.details::text AS details,
    m.id AS "m_id", m.name AS "m_name", m.computed_by AS "m_computedBy", m.unit AS "m_unit",
    m.value_range AS "m_valueRange", m.description AS "m_description"
  FROM metric_results r JOIN metrics m ON m.id = r.of_metric_type`;

/**
 * The statement of `queryMetricResults`. Newest first walks metric_results_computed backwards (migration 6), sorting
 * only results of equal times by id (an incremental sort), and stops at the page's end; a session filter reads the
 * primary key.
 */
export function resultQueryStatement(plan: PlannedResultQuery): { text: string; values: unknown[] } {
  const { where, params } = resultFilter(plan, POSTGRES_BINDING);
  params.push(plan.limit ?? null, plan.offset);
  return { text: `${RESULT_SELECT} ${where} ORDER BY r.computed_at DESC, r.id LIMIT $${params.length - 1} OFFSET $${params.length}`, values: params };
}

/** `planResultQuery`, less the session ids none stored can have; undefined when nothing can match. */
function planStoredResults(query: ResultQuery): PlannedResultQuery | undefined {
  const plan = planResultQuery(query);
  // A session id with a NUL character is none stored (assertNoNulIds), and PostgreSQL refuses it as a parameter.
  if (plan?.sessionIds) plan.sessionIds = plan.sessionIds.filter((id) => !id.includes('\0'));
  return plan?.sessionIds?.length === 0 ? undefined : plan;
}

const HEADER_SELECT = `SELECT id, start_time AS "startTime", end_time AS "endTime", service_name AS "serviceName",
  app_name AS "appName", trace_ids AS "traceIds", user_input AS "userInput", final_response AS "finalResponse",
  attributes::text AS attributes FROM sessions`;

/**
 * The payloads of the sessions' calls (or MCP servers), each session's in `seq` order. Unordered in SQL: PostgreSQL
 * sorting the rows carried every payload through the sort (4–5 ms of a 6 ms query for a 50-session batch of 2,500
 * calls, against 1 ms without). Each session's rows are put in seq order here instead: they are already in that order
 * as a rule (written together, in seq order), which the sort checks in one pass.
 */
async function payloads(client: pg.PoolClient, sessionIds: readonly string[], table: 'calls' | 'mcp_servers' = 'calls'): Promise<Map<string, string[]>> {
  const { rows } = await client.query<[string, number, string]>({
    text: `SELECT session_id, seq, payload::text FROM ${table} WHERE session_id = ANY($1)`,
    values: [sessionIds],
    rowMode: 'array',
  });
  const bySession = new Map<string, [string, number, string][]>();
  for (const row of rows) {
    const list = bySession.get(row[0]);
    if (list) list.push(row);
    else bySession.set(row[0], [row]);
  }
  return new Map([...bySession].map(([id, list]) => [id, list.sort((a, b) => a[1] - b[1]).map((row) => row[2])]));
}

/** The names of the sessions' stored MCP servers, by session. */
async function serverNames(client: pg.PoolClient, sessionIds: readonly string[]): Promise<Map<string, string[]>> {
  const { rows } = await client.query<[string, string]>({
    text: 'SELECT session_id, name FROM mcp_servers WHERE session_id = ANY($1)',
    values: [sessionIds],
    rowMode: 'array',
  });
  const bySession = new Map<string, string[]>();
  for (const [id, name] of rows) bySession.set(id, [...(bySession.get(id) ?? []), name]);
  return bySession;
}

export class PostgresStore implements KnowledgeGraphStore {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly schema: string;
  private readonly logger: StoreLogger;

  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.schema = options.schema ?? 'public';
    this.logger = options.logger ?? defaultLogger();
    this.pool = new pg.Pool({ ...withSearchPath(url, this.schema), max: options.maxConnections ?? 4 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', (error) => this.logger.warn({ error: error.message }, 'idle PostgreSQL connection lost'));
  }

  /** Whether the store's tables exist (its schema holds the migrations table): a read-only command needs them. */
  async exists(): Promise<boolean> {
    const found = await this.pool.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [this.schema, 'schema_migrations']);
    return (found.rowCount ?? 0) > 0;
  }

  /** The schema the tables live in. */
  get schemaName(): string {
    return this.schema;
  }

  get location(): { where: string; setting: string } {
    return { where: `PostgreSQL schema ${this.schema}`, setting: 'schema=' };
  }

  /** Create the schema and apply pending migrations; two processes starting together take turns. */
  async init(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_NAMESPACE, `migrate:${this.schema}`]);
      // Only when missing: CREATE SCHEMA checks the database privilege even when the schema exists.
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema]);
      if (exists.rowCount === 0) {
        await client.query(`CREATE SCHEMA ${quoteIdent(this.schema)}`);
        // Said, so a misspelt schema= is seen: everything after it would read an empty store.
        this.logger.warn({ schema: this.schema }, `PostgreSQL schema ${this.schema} did not exist: created it, empty`);
      }
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const applied = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
      );
      for (const m of POSTGRES_MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
    });
  }

  async writeSessions(sessions: readonly Session[]): Promise<void> {
    assertStorableIds(sessions);
    const batch = coalesceSessions(sessions);
    if (batch.length === 0) return;
    for (const session of batch) assertNoNulIds(session);
    const ids = batch.map((s) => s.id);
    await this.transaction(async (client) => {
      // Per-session locks make the read-merge-write of a session safe across processes.
      await this.lockSessions(client, ids);
      const stored = new Map(
        (await client.query<Row>(`${HEADER_SELECT} WHERE id = ANY($1)`, [ids])).rows.map((r) => [r.id as string, r]),
      );
      const nextSeq = new Map<string, { calls: number; servers: number }>(
        (
          await client.query<{ id: string; calls: number; servers: number }>(
            `SELECT id, (SELECT COALESCE(MAX(seq) + 1, 0) FROM calls c WHERE c.session_id = s.id) AS calls,
               (SELECT COALESCE(MAX(seq) + 1, 0) FROM mcp_servers m WHERE m.session_id = s.id) AS servers
             FROM sessions s WHERE id = ANY($1)`,
            [ids],
          )
        ).rows.map((r) => [r.id, r]),
      );
      // Sessions stored already: each part is reconciled with the stored calls (merge.ts), read in one query.
      const storedCalls = stored.size > 0 ? await payloads(client, [...stored.keys()]) : new Map<string, string[]>();
      const storedServers = stored.size > 0 ? await serverNames(client, [...stored.keys()]) : new Map<string, string[]>();
      const writes = batch.map((s) => {
        const header = stored.get(s.id);
        const before = header ? assembleSession(headerFromRow(header as unknown as HeaderRow), storedCalls.get(s.id) ?? [], []) : undefined;
        const write = planSessionWrite(before, s);
        const next = nextSeq.get(s.id) ?? { calls: 0, servers: 0 };
        const calls = callRows(write.session, next.calls);
        const servers = serverRows(write.session, next.servers);
        const counts = countsAfterWrite(before, storedServers.get(s.id) ?? [], { removed: write.removed, calls, servers });
        return { ...write, calls, servers, counts };
      });
      const removed = writes.flatMap((w) => w.removed.map((id) => ({ sessionId: w.session.id, id })));
      for (const chunk of chunks(removed, CHUNK)) {
        await client.query(
          `DELETE FROM calls c USING unnest($1::text[], $2::text[]) AS r(session_id, id) WHERE c.session_id = r.session_id AND c.id = r.id`,
          columns(chunk, ['sessionId', 'id']),
        );
        // A removed call's results go with it: they measured a call the session no longer has.
        await client.query(
          `DELETE FROM metric_results m USING unnest($1::text[], $2::text[]) AS r(session_id, id)
           WHERE m.session_id = r.session_id AND m.measures_id = r.id AND m.measures_level <> 'Session'`,
          columns(chunk, ['sessionId', 'id']),
        );
      }
      const headers = writes.map((w) => headerRow(w.header));
      // The element counts go with the header (migration 7): counted from the write, they are the rows' once it commits.
      await client.query(
        `INSERT INTO sessions (id, start_time, end_time, service_name, app_name, trace_ids, user_input, final_response, attributes,
           mas_call_count, agent_call_count, task_call_count, llm_call_count, tool_call_count, mcp_server_count)
         SELECT id, st, et, sn, an, ARRAY(SELECT json_array_elements_text(ti)), ui, fr, at, nm, na, nt, nl, nc, ns
         FROM unnest($1::text[], $2::float8[], $3::float8[], $4::text[], $5::text[], $6::json[], $7::text[], $8::text[], $9::json[],
           $10::int[], $11::int[], $12::int[], $13::int[], $14::int[], $15::int[])
           AS t(id, st, et, sn, an, ti, ui, fr, at, nm, na, nt, nl, nc, ns)
         ON CONFLICT (id) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time,
           service_name = excluded.service_name, app_name = excluded.app_name, trace_ids = excluded.trace_ids,
           user_input = excluded.user_input, final_response = excluded.final_response, attributes = excluded.attributes,
           mas_call_count = excluded.mas_call_count, agent_call_count = excluded.agent_call_count,
           task_call_count = excluded.task_call_count, llm_call_count = excluded.llm_call_count,
           tool_call_count = excluded.tool_call_count, mcp_server_count = excluded.mcp_server_count`,
        [
          ...columns(headers, ['id', 'startTime', 'endTime', 'serviceName', 'appName']),
          headers.map((h) => JSON.stringify(h.traceIds.map(pgText))), // json_array_elements_text has no NUL either
          ...columns(headers, ['userInput', 'finalResponse', 'attributes']),
          ...COUNT_KEYS.map((key) => writes.map((w) => w.counts[key])),
        ],
      );
      const calls = writes.flatMap((w) => w.calls);
      for (const chunk of chunks(calls, CHUNK)) {
        await client.query(
          `INSERT INTO calls (session_id, id, kind, seq, name, trace_id, parent_id, start_time, end_time, status, payload)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[],
             $8::float8[], $9::float8[], $10::text[], $11::json[])
           ON CONFLICT (session_id, id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
             trace_id = excluded.trace_id, parent_id = excluded.parent_id, start_time = excluded.start_time,
             end_time = excluded.end_time, status = excluded.status, payload = excluded.payload`,
          columns(chunk, ['sessionId', 'id', 'kind', 'seq', 'name', 'traceId', 'parentId', 'startTime', 'endTime', 'status', 'payload']),
        );
      }
      const servers = writes.flatMap((w) => w.servers);
      for (const chunk of chunks(servers, CHUNK)) {
        await client.query(
          `INSERT INTO mcp_servers (session_id, name, seq, transport, payload)
           SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::json[])
           ON CONFLICT (session_id, name) DO UPDATE SET transport = excluded.transport, payload = excluded.payload`,
          columns(chunk, ['sessionId', 'name', 'seq', 'transport', 'payload']),
        );
      }
    });
  }

  async getSession(id: string): Promise<Session | undefined> {
    return (await this.getSessions([id])).get(id);
  }

  async getSessions(ids: readonly string[]): Promise<Map<string, Session>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    // Three queries for the whole batch instead of three (and a transaction) per session.
    return this.transaction(async (client) => {
      const headers = (await client.query<Row>(`${HEADER_SELECT} WHERE id = ANY($1)`, [unique])).rows;
      if (headers.length === 0) return new Map();
      const found = headers.map((h) => h.id as string);
      const calls = await payloads(client, found);
      const servers = await payloads(client, found, 'mcp_servers');
      return new Map(
        headers.map((h) => [
          h.id as string,
          assembleSession(headerFromRow(h as unknown as HeaderRow), calls.get(h.id as string) ?? [], servers.get(h.id as string) ?? []),
        ]),
      );
    }, 'ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    const { where, params } = sessionFilter(options, (n) => `$${n}`);
    params.push(options.limit ?? null, options.offset ?? 0);
    const { rows } = await this.pool.query<Row>(
      `SELECT s.id, s.start_time AS "startTime", s.end_time AS "endTime", s.service_name AS "serviceName",
         s.app_name AS "appName", ${COUNTS_SELECT}
       FROM sessions s ${where}
       ORDER BY s.start_time DESC, s.id COLLATE "C" LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
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
    const { where, params } = sessionFilter(options, (n) => `$${n}`);
    params.push(options.limit ?? null, options.offset ?? 0);
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT s.id FROM sessions s ${where}
       ORDER BY s.start_time DESC, s.id COLLATE "C" LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return rows.map((r) => r.id);
  }

  async sessionExists(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ id: string }>('SELECT id FROM sessions WHERE id = ANY($1)', [[...ids]]);
    return new Set(rows.map((r) => r.id));
  }

  async writeMetricResults(
    definitions: readonly MetricDefinition[],
    results: readonly MetricResult[],
  ): Promise<WriteResultsOutcome> {
    assertDefinitions(definitions);
    return this.transaction(
      async (client) => {
        const known = new Set(definitions.map((d) => d.id));
        const missing = missingMetricIds(definitions, results);
        if (missing.length > 0) {
          const found = await client.query<{ id: string }>('SELECT id FROM metrics WHERE id = ANY($1)', [missing]);
          for (const { id } of found.rows) known.add(id);
        }
        const validated = validateResults(results, known, this.logger, postgresLimits);
        // Before any write, as deleteSessions locks its sessions before deleting (see lockStoredSessions).
        const stored = await lockStoredSessions(client, sessionIdsOf(validated.valid));
        const { kept: valid, rejected } = splitByStoredSession(validated.valid, stored, this.logger);
        if (definitions.length > 0) await this.upsertDefinitions(client, definitions);
        await copyResults(client, valid);
        return { written: valid.length, rejected: [...validated.rejected, ...rejected] };
      },
      'READ WRITE',
      ensureResultStage,
    );
  }

  // synchronous_commit stays on (the server's default) for result writes. Turning it off would save one WAL flush
  // per batch (about 0.1 ms a session here), but the worker acks a batch's messages as soon as its commit returns: a
  // server crash in the following few hundred milliseconds would lose results whose messages are already gone from
  // the queue, and nothing would recompute them. Durability is worth more than that.
  async openResultFlush(definitions: readonly MetricDefinition[]): Promise<ResultFlush> {
    assertDefinitions(definitions);
    const client = await this.checkout();
    try {
      await ensureResultStage(client);
      await client.query('BEGIN READ WRITE');
      if (definitions.length > 0) await this.upsertDefinitions(client, definitions);
      await client.query('SAVEPOINT mce_copy');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw error;
    }
    return new PostgresResultFlush(client, definitions.map((d) => d.id), this.logger);
  }

  /**
   * Insert new definitions and update only the ones that changed: every batch carries the same few definitions,
   * and an unconditional upsert would make concurrent writers queue on those rows until each commits.
   */
  private async upsertDefinitions(client: pg.PoolClient, definitions: readonly MetricDefinition[]): Promise<void> {
    const unique = [...new Map(definitions.map((d) => [d.id, { ...d, description: d.description ?? null }])).values()].sort(
      (a, b) => (a.id < b.id ? -1 : 1),
    );
    const params = columns(unique, ['id', 'name', 'computedBy', 'unit', 'valueRange', 'description']);
    const source = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
      AS t(id, name, computed_by, unit, value_range, description)`;
    await client.query(`INSERT INTO metrics SELECT * FROM ${source} ON CONFLICT (id) DO NOTHING`, params);
    await client.query(
      `UPDATE metrics m SET name = t.name, computed_by = t.computed_by, unit = t.unit, value_range = t.value_range,
         description = t.description FROM ${source}
       WHERE m.id = t.id AND (m.name, m.computed_by, m.unit, m.value_range, m.description)
         IS DISTINCT FROM (t.name, t.computed_by, t.unit, t.value_range, t.description)`,
      params,
    );
  }

  async deleteMetricResults(results: ReadonlyArray<{ sessionId: string; id: string }>): Promise<number> {
    if (results.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      `DELETE FROM metric_results r USING unnest($1::text[], $2::text[]) AS t(session_id, id)
       WHERE r.session_id = t.session_id AND r.id = t.id`,
      [results.map((r) => r.sessionId), results.map((r) => r.id)],
    );
    return rowCount ?? 0;
  }

  async getMetricResults(sessionId: string, query: MetricResultsQuery = {}): Promise<StoredMetricResult[]> {
    if (query.metricNames && query.metricNames.length === 0) return [];
    const where = ['r.session_id = $1'];
    if (!query.recursive) where.push(`r.measures_level = 'Session' AND r.measures_id = $1`);
    const params: unknown[] = [sessionId];
    if (query.metricNames) {
      params.push([...query.metricNames]);
      where.push('r.name = ANY($2)');
    }
    const { rows } = await this.pool.query<Row>(`${RESULT_SELECT} WHERE ${where.join(' AND ')} ORDER BY r.computed_at DESC, r.id`, params);
    return rows.map(storedResult);
  }

  async queryMetricResults(query: ResultQuery = {}): Promise<StoredMetricResult[]> {
    const plan = planStoredResults(query);
    if (!plan) return [];
    const { rows } = await this.pool.query<Row>(resultQueryStatement(plan));
    return rows.map(storedResult);
  }

  async summarizeMetricResults(query: ResultSummaryQuery = {}): Promise<ResultSummary[]> {
    const plan = planStoredResults(query);
    if (!plan) return [];
    const { rows } = await this.pool.query<Row>(summaryStatement(plan, POSTGRES_BINDING));
    return summariesFromRows(rows);
  }

  async deleteSessions(ids: readonly string[]): Promise<string[]> {
    // An id with a NUL character cannot be stored (assertNoNulIds), and PostgreSQL refuses it as a parameter.
    const unique = [...new Set(ids)].filter((id) => !id.includes('\0'));
    if (unique.length === 0) return [];
    return this.transaction(async (client) => {
      // The locks of writeSessions: a part being merged into one of these sessions is written before or after, whole.
      await this.lockSessions(client, unique);
      // The rows first, in the order result writes lock them (lockStoredSessions): a write holding one makes this
      // wait until it commits, so that the deletion of its results below sees them; a write coming after sees the
      // session gone and stores nothing.
      await client.query('SELECT id FROM sessions WHERE id = ANY($1) ORDER BY id FOR UPDATE', [unique]);
      await client.query('DELETE FROM metric_results WHERE session_id = ANY($1)', [unique]);
      // Calls and MCP servers also go by cascade with their session; deleted first, explicitly, as in SQLite.
      await client.query('DELETE FROM calls WHERE session_id = ANY($1)', [unique]);
      await client.query('DELETE FROM mcp_servers WHERE session_id = ANY($1)', [unique]);
      const { rows } = await client.query<{ id: string }>('DELETE FROM sessions WHERE id = ANY($1) RETURNING id', [unique]);
      const removed = new Set(rows.map((r) => r.id));
      return unique.filter((id) => removed.has(id));
    });
  }

  /** Per-session advisory locks, in a fixed order (so two transactions taking several never deadlock). */
  private async lockSessions(client: pg.PoolClient, ids: readonly string[]): Promise<void> {
    await client.query(
      `SELECT pg_advisory_xact_lock($1, k) FROM (SELECT DISTINCT hashtext(id) AS k FROM unnest($2::text[]) AS id ORDER BY k) AS keys`,
      [LOCK_NAMESPACE, ids],
    );
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * A pooled client for several statements. While a client is checked out the pool stops listening for its 'error'
   * event, and a connection cut then (a server restart, a failover, a killed backend) would be an unhandled 'error'
   * that ends the process: a listener is attached until the client is released. The statement in flight rejects on
   * its own, so the work fails as any failed write does.
   */
  private async checkout(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    const onError = (error: Error) => this.logger.warn({ error: error.message }, 'PostgreSQL connection lost in a transaction');
    client.on('error', onError);
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      client.removeListener('error', onError);
      release(error);
    };
    return client;
  }

  /** `work` in one transaction; `prepare` runs on the connection first, outside it (e.g. creating a temp table). */
  private async transaction<T>(
    work: (client: pg.PoolClient) => Promise<T>,
    mode = 'READ WRITE',
    prepare?: (client: pg.PoolClient) => Promise<void>,
  ): Promise<T> {
    const client = await this.checkout();
    try {
      if (prepare) await prepare(client);
      await client.query(`BEGIN ${mode}`);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

