import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needService, PG_URL } from '../../../test-support/services.js';
import { openStore, type KnowledgeGraphStore, type ResultQuery } from '@mce/store';
import { PostgresStore } from '../src/index.js';
import { planResultQuery } from '@mce/store/adapter';
import { resultQueryStatement } from '../src/postgres-store.js';
import { storeConformance } from '@mce/store/conformance';
import { postgresRowsMentioning } from '../../store/test/support/leftovers.js';
import { bareSession, DEFINITIONS, metricResult, richSession, T0_MS, toolCall } from '@mce/store/conformance';
import { callRows, headerRow, serverRows } from '@mce/store/adapter';
import { sessionHeader } from '@mce/store';
import { POSTGRES_MIGRATIONS } from '../src/migrations.js';

const available = await needService('postgres');
/** Every store of this file lives in its own schema: files (and tests) run in parallel on one server. */
const PREFIX = `mce_store_conf_${process.pid}`;
let n = 0;

async function dropSchemas() {
  const client = new pg.Client(PG_URL);
  await client.connect();
  const { rows } = await client.query<{ s: string }>(
    `SELECT nspname AS s FROM pg_namespace WHERE nspname LIKE $1`,
    [`${PREFIX}%`],
  );
  for (const { s } of rows) await client.query(`DROP SCHEMA "${s}" CASCADE`);
  await client.end();
}

describe.skipIf(!available)('PostgreSQL store', () => {
  afterAll(async () => {
    if (available) await dropSchemas();
  });

  const schemas = new WeakMap<KnowledgeGraphStore, string>();
  storeConformance('PostgreSQL', {
    open: async (logger) => {
      const schema = `${PREFIX}_${++n}`;
      const store = await openStore(PG_URL, { logger, schema });
      schemas.set(store, schema);
      return store;
    },
    rowsMentioning: async (store, text) => postgresRowsMentioning(PG_URL, schemas.get(store)!, text),
  });

  it('puts its tables in the schema a URL names with ?schema= (MCE_STORE_URL, --store-url)', async () => {
    const schema = `${PREFIX}_from_url`;
    const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;
    const store = await openStore(url);
    await store.writeSessions([bareSession('in-url-schema', 0)]);
    await store.close();
    const client = new pg.Client(PG_URL);
    await client.connect();
    const { rows } = await client.query(`SELECT id FROM "${schema}".sessions`);
    await client.end();
    expect(rows).toEqual([{ id: 'in-url-schema' }]);
  });

  it('reads calls back in their stored order when the rows are not in that order on disk', async () => {
    const schema = `${PREFIX}_order`;
    const store = await openStore(PG_URL, { schema });
    const calls = [1, 2, 3, 4, 5].map((n) => toolCall('ord', n, n * 10));
    await store.writeSessions([bareSession('ord', 0, { toolCalls: calls })]);
    const client = new pg.Client(PG_URL);
    await client.connect();
    // Reverse the stored order: the rows stay where they are on disk (new versions written in the old order), so a
    // scan now meets them in descending seq.
    await client.query(`UPDATE "${schema}".calls SET seq = 4 - seq WHERE session_id = 'ord'`);
    // With statistics, a one-page table is read by a sequential scan: the rows come in their order on disk.
    await client.query(`ANALYZE "${schema}".calls`);
    const scanned = await client.query<{ seq: number }>(`SELECT seq FROM "${schema}".calls WHERE session_id = 'ord' ORDER BY ctid`);
    await client.end();
    expect(scanned.rows.map((r) => r.seq)).toEqual([4, 3, 2, 1, 0]);
    expect((await store.getSession('ord'))?.toolCalls).toStrictEqual([...calls].reverse());
    expect((await store.getSessions(['ord', 'none'])).get('ord')?.toolCalls).toStrictEqual([...calls].reverse());
    await store.close();
  });

  it('stores a NUL character in a text column as U+FFFD (JSON payloads keep it), and refuses one in an id, naming it', async () => {
    const store = await openStore(PG_URL, { schema: `${PREFIX}_nul` });
    const tool = toolCall('nul', 1, 10, { name: 'execute_tool a\u0000b', result: 'out\u0000put' });
    await store.writeSessions([bareSession('nul', 0, { userInput: 'hi\u0000there', toolCalls: [tool] })]);
    const back = await store.getSession('nul');
    expect(back?.userInput).toBe('hi\uFFFDthere');
    // A call comes back from its JSON payload, which escapes the NUL and keeps it (the name column only indexes).
    expect(back?.toolCalls[0]?.name).toBe('execute_tool a\u0000b');
    expect(back?.toolCalls[0]?.result).toBe('out\u0000put');
    const badCall = toolCall('nul-2', 1, 10, { id: 'tool\u00001' });
    await expect(store.writeSessions([bareSession('nul-2', 0, { toolCalls: [badCall] })])).rejects.toThrow(
      'session "nul-2": the id of ToolCall "tool\\01" contains a NUL character, which PostgreSQL cannot store',
    );
    await expect(store.writeSessions([bareSession('a\u0000b', 0)])).rejects.toThrow('session "a\\0b": its id contains a NUL');
    expect(await store.getSession('nul-2')).toBeUndefined();
    await store.close();
  });

  it('keeps its schema when the URL brings options of its own, and takes a schema name with a space', async () => {
    const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c statement_timeout=4321')}`;
    const store = new PostgresStore(url, { schema: `${PREFIX}_opts` });
    await store.init();
    await store.writeSessions([bareSession('o1', 0, { traceIds: ['t\u0000x'] })]);
    const spaced = new PostgresStore(PG_URL, { schema: `${PREFIX} spaced` });
    await spaced.init();
    await spaced.writeSessions([bareSession('s1', 0)]);
    const client = new pg.Client(url);
    await client.connect();
    const tables = await client.query<{ s: string; n: string }>(
      `SELECT table_schema AS s, count(*) AS n FROM information_schema.tables WHERE table_schema LIKE $1 GROUP BY 1 ORDER BY 1`,
      [`${PREFIX}%`],
    );
    const timeout = await client.query<{ statement_timeout: string }>('SHOW statement_timeout');
    await client.end();
    expect(tables.rows.filter((r) => r.s.endsWith('_opts') || r.s.endsWith(' spaced')).map((r) => [r.s, Number(r.n)])).toEqual([
      [`${PREFIX} spaced`, 6],
      [`${PREFIX}_opts`, 6],
    ]);
    expect(timeout.rows[0]?.statement_timeout).toBe('4321ms'); // the URL's own option still applies
    expect((await store.getSession('o1'))?.traceIds).toEqual(['t\uFFFDx']); // PostgreSQL text has no NUL
    expect((await spaced.getSession('s1'))?.id).toBe('s1');
    await store.close();
    await spaced.close();
  });

  it('results across sessions come newest first from the computed_at index, only ties sorted; by session from the key', async () => {
    const schema = `${PREFIX}_plans`;
    const store = await openStore(PG_URL, { schema });
    const results = Array.from({ length: 20_000 }, (_, i) => metricResult(`p${i}`, `s${i % 400}`, { at: i % 5000, metric: DEFINITIONS[i % 3], value: i }));
    await store.writeSessions(Array.from({ length: 400 }, (_, i) => bareSession(`s${i}`, 0)));
    expect(await store.writeMetricResults(DEFINITIONS, results)).toEqual({ written: 20_000, rejected: [] });
    await store.close();
    const client = new pg.Client(PG_URL);
    await client.connect();
    await client.query(`SET search_path = "${schema}"`);
    await client.query('ANALYZE metric_results');
    const plan = async (query: ResultQuery) => {
      const { text, values } = resultQueryStatement(planResultQuery(query)!);
      return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN'].trim());
    };
    const window = { from: T0_MS + 100_000, to: T0_MS + 4_000_000, limit: 50 }; // most of the results' times
    for (const query of [{ limit: 50 }, { metrics: ['Duration', 'mce:Cost'], limit: 50 }, window]) {
      const steps = await plan(query);
      expect(steps.filter((s) => /Index Scan|Sort|Presorted/.test(s)).map((s) => s.replace(/ +\(cost=.*$/, '')), JSON.stringify(query)).toEqual([
        '->  Incremental Sort',
        'Sort Key: r.computed_at DESC, r.id COLLATE "C"',
        'Presorted Key: r.computed_at', // only the results of one time are sorted, by id
        '->  Index Scan Backward using metric_results_computed on metric_results r',
        '->  Index Scan using metrics_pkey on metrics m',
      ]);
    }
    expect((await plan({ sessionIds: ['s1', 's2'], limit: 50 })).join('\n')).toMatch(/Index Scan using metric_results_pkey on metric_results r .*\nIndex Cond: \(session_id = ANY/);
    await client.end();
  });

  describe('migrations', () => {
    beforeAll(dropSchemas);

    it('two stores starting together on a new schema migrate it once', async () => {
      const schema = `${PREFIX}_race`;
      const [a, b] = await Promise.all([openStore(PG_URL, { schema }), openStore(PG_URL, { schema })]);
      expect(a).toBeInstanceOf(PostgresStore);
      await a.writeSessions([bareSession('x', 1)]);
      expect(await b.sessionExists(['x'])).toEqual(new Set(['x']));
      const client = new pg.Client(PG_URL);
      await client.connect();
      const { rows } = await client.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      await client.end();
      expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
      await a.close();
      await b.close();
    });

    it('a schema written by version 6 lists its sessions with their element counts once migrated', async () => {
      const schema = `${PREFIX}_v6`;
      const client = new pg.Client(PG_URL);
      await client.connect();
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path = "${schema}"`);
      await client.query(`CREATE TABLE schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      for (const m of POSTGRES_MIGRATIONS.filter((m) => m.version <= 6)) {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
      // The rows as version 6 wrote them: no counts in the sessions table.
      const rich = richSession();
      for (const session of [rich, bareSession('bare', 5)]) {
        const h = headerRow(sessionHeader(session));
        await client.query('INSERT INTO sessions VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
          h.id, h.startTime, h.endTime, h.serviceName, h.appName, h.traceIds, h.userInput, h.finalResponse, h.attributes,
        ]);
        for (const c of callRows(session, 0)) {
          await client.query('INSERT INTO calls VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
            c.sessionId, c.id, c.kind, c.seq, c.name, c.traceId, c.parentId, c.startTime, c.endTime, c.status, c.payload,
          ]);
        }
        for (const m of serverRows(session, 0)) {
          await client.query('INSERT INTO mcp_servers VALUES ($1, $2, $3, $4, $5)', [m.sessionId, m.name, m.seq, m.transport, m.payload]);
        }
      }
      await client.end();
      const store = await openStore(PG_URL, { schema });
      const listed = new Map((await store.listSessions()).map((s) => [s.id, s.counts]));
      expect(listed.get('bare')).toEqual({ masCalls: 0, agentCalls: 0, taskCalls: 0, llmCalls: 0, toolCalls: 0, mcpServers: 0 });
      expect(listed.get(rich.id)).toEqual({ masCalls: 1, agentCalls: 1, taskCalls: 1, llmCalls: 1, toolCalls: 1, mcpServers: 2 });
      // Written on after the migration, the counts go on from the filled ones.
      await store.writeSessions([bareSession(rich.id, rich.startTime, { toolCalls: [toolCall(rich.id, 9, 0)] })]);
      expect((await store.listSessions()).find((s) => s.id === rich.id)?.counts).toMatchObject({ toolCalls: 2, mcpServers: 2 });
      await store.close();
    });

    it('a schema at version 1 with results moves to the latest version and keeps them', async () => {
      const schema = `${PREFIX}_v1`;
      const client = new pg.Client(PG_URL);
      await client.connect();
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path = "${schema}"`);
      await client.query(`CREATE TABLE schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      await client.query(POSTGRES_MIGRATIONS[0]!.sql);
      await client.query(`INSERT INTO schema_migrations (version, name) VALUES (1, 'v1')`);
      const [definition] = DEFINITIONS;
      const old = metricResult('old', 'sess', { at: 1 });
      await client.query(`INSERT INTO metrics VALUES ($1, $2, $3, $4, $5, NULL)`, [
        definition!.id, definition!.name, definition!.computedBy, definition!.unit, definition!.valueRange,
      ]);
      await client.query(
        `INSERT INTO metric_results VALUES ($1, $2, $3, $4, NULL, 0, 0, 0, 0, $5::text, $5::text::timestamptz, $6, 'Session', 'sess', 'sess', NULL)`,
        [old.id, old.name, old.result, old.reasoning, old.timestamp, old.ofMetricType],
      );
      const store = await openStore(PG_URL, { schema });
      // computed_at moved from timestamptz to epoch ms, the stored result's value converted.
      const computed = await client.query(`SELECT id, computed_at::text AS ms FROM "${schema}".metric_results`);
      expect(computed.rows).toEqual([{ id: old.id, ms: String(Date.parse(old.timestamp)) }]);
      const newer = metricResult('new', 'sess', { at: 2 });
      await store.writeSessions([bareSession('sess', 0)]);
      expect(await store.writeMetricResults(DEFINITIONS, [newer, { ...old, result: 9 }])).toEqual({ written: 2, rejected: [] });
      expect((await store.getMetricResults('sess')).map((r) => r.result)).toStrictEqual([newer, { ...old, result: 9 }]);
      await store.close();
      const { rows } = await client.query(
        `SELECT attname AS column, collname AS collation FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
         WHERE attrelid = '"${schema}".metric_results'::regclass AND attname IN ('id', 'session_id', 'name') ORDER BY attname`,
      );
      expect(rows).toEqual([
        { column: 'id', collation: 'C' },
        { column: 'name', collation: 'default' },
        { column: 'session_id', collation: 'C' },
      ]);
      // Two indexes on metric_results: the (session_id, id) primary key, and time order for results across sessions.
      const indexes = await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'metric_results' ORDER BY indexname`, [schema]);
      expect(indexes.rows).toEqual([
        { indexdef: `CREATE INDEX metric_results_computed ON ${schema}.metric_results USING btree (computed_at)` },
        { indexdef: `CREATE UNIQUE INDEX metric_results_pkey ON ${schema}.metric_results USING btree (session_id, id)` },
      ]);
      // The calls' position index carries their kind, so listings count kinds from the index alone.
      const calls = await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'calls_seq'`, [schema]);
      expect(calls.rows).toEqual([{ indexdef: `CREATE INDEX calls_seq ON ${schema}.calls USING btree (session_id, seq) INCLUDE (kind)` }]);
      await client.end();
    });
  });
});
