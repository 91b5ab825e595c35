/**
 * The PostgreSQL streaming result flush (`openResultFlush`): the same outcome as `writeMetricResults` for the same
 * results, one transaction, overwrites on redelivery, and nothing left behind by an abort.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { MetricResult } from '@mce/core';
import { needService, PG_URL } from '../../../test-support/services.js';
import type { StoreLogger } from '@mce/store';
import { PostgresStore } from '../src/index.js';
import { bareSession, DEFINITIONS, metricResult } from '@mce/store/conformance';

const available = await needService('postgres');
const PREFIX = `mce_store_flush_${process.pid}`;
let n = 0;

describe.skipIf(!available)('PostgreSQL result flush', () => {
  let store: PostgresStore;
  let warnings: unknown[];
  const [DURATION, , RELEVANCY] = DEFINITIONS as [(typeof DEFINITIONS)[0], (typeof DEFINITIONS)[0], (typeof DEFINITIONS)[0]];

  let schema: string;
  const admin = async (sql: string) => {
    const client = new pg.Client(PG_URL);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  beforeEach(async () => {
    warnings = [];
    const logger: StoreLogger = { warn: (details) => void warnings.push(details) };
    schema = `${PREFIX}_${++n}`;
    store = new PostgresStore(PG_URL, { schema, logger, maxConnections: 2 });
    await store.init();
    expect(warnings).toEqual([{ schema }]); // the schema is new: said once
    warnings.length = 0;
    await store.writeSessions([bareSession('sess', 0)]);
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    const client = new pg.Client(PG_URL);
    await client.connect();
    const { rows } = await client.query<{ s: string }>(`SELECT nspname AS s FROM pg_namespace WHERE nspname LIKE $1`, [`${PREFIX}%`]);
    for (const { s } of rows) await client.query(`DROP SCHEMA "${s}" CASCADE`);
    await client.end();
  });

  const ids = async () => (await store.getMetricResults('sess', { recursive: true })).map((s) => s.result.id).sort();

  it('streams results added in parts and commits them at once, rejecting the invalid ones in input order', async () => {
    // A Metric stored earlier, not among this flush's definitions: its results are checked at commit and kept.
    await store.writeMetricResults([RELEVANCY], []);
    const flush = await store.openResultFlush([DURATION]);
    const a = metricResult('a', 'sess', { at: 1 });
    const b = metricResult('b', 'sess', { at: 2 });
    const judged = metricResult('judged', 'sess', { metric: RELEVANCY, at: 3 });
    const unknown = { ...metricResult('unknown', 'sess'), ofMetricType: 'mce:Nope' };
    const nan = { ...metricResult('nan', 'sess'), result: Number.NaN };
    flush.add([a, unknown]);
    flush.add([]);
    flush.add([judged, nan, b, { ...metricResult('', 'sess') }]);
    expect(await ids()).toEqual([]); // nothing visible before the commit
    const outcome = await flush.commit();
    expect(outcome.written).toBe(3);
    expect(outcome.rejected.map((r) => [r.id, r.reasons.map((x) => x.message)])).toEqual([
      ['unknown', ['no Metric definition with id "mce:Nope"']],
      ['nan', ['Invalid input: expected number, received NaN']],
      ['#5', ['Too small: expected string to have >=1 characters']],
    ]);
    expect(warnings).toHaveLength(3);
    expect((await store.getMetricResults('sess')).map((s) => s.result)).toStrictEqual([judged, b, a]);
  });

  it('a result whose details JSON cannot hold is rejected alone; the flush commits the rest', async () => {
    const flush = await store.openResultFlush([DURATION]);
    flush.add([metricResult('ok', 'sess', { at: 1 }), { ...metricResult('big', 'sess', { at: 2 }), details: { n: 10n } }]);
    const outcome = await flush.commit();
    expect([outcome.written, outcome.rejected.map((r) => [r.id, r.reasons[0]?.path])]).toEqual([1, [['big', 'details']]]);
    expect(await ids()).toEqual(['ok']);
  });

  it('a connection cut during a flush fails the flush, not the process; the store then writes on a new connection', async () => {
    // A store of its own, its connections named so that only they are cut.
    const app = `mce_cut_${process.pid}_${n}`;
    const cut = new PostgresStore(`${PG_URL}${PG_URL.includes('?') ? '&' : '?'}application_name=${app}`, {
      schema,
      logger: { warn: (details) => void warnings.push(details) },
      maxConnections: 2,
    });
    try {
      const flush = await cut.openResultFlush([DURATION]);
      flush.add([metricResult('x', 'sess', { at: 1 })]);
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${app}'`);
      await new Promise((resolve) => setTimeout(resolve, 200)); // the 'error' event arrives meanwhile
      await expect(flush.commit()).rejects.toThrow();
      expect(warnings).toContainEqual(expect.objectContaining({ error: expect.stringMatching(/terminat|ECONNRESET|Connection terminated/i) }));
      expect(await cut.writeMetricResults([DURATION], [metricResult('y', 'sess', { at: 2 })])).toEqual({ written: 1, rejected: [] });
      expect(await ids()).toEqual(['y']);
    } finally {
      await cut.close();
    }
  });

  it('a redelivered batch overwrites its results (and a repeated id keeps its last value)', async () => {
    const first = Array.from({ length: 30 }, (_, i) => metricResult(`r${i}`, 'sess', { at: i, value: i }));
    const once = await store.openResultFlush(DEFINITIONS);
    once.add(first);
    expect(await once.commit()).toEqual({ written: 30, rejected: [] });

    const again = first.map((r) => ({ ...r, result: r.result + 100 }));
    const extra = metricResult('r-new', 'sess', { at: 40, value: 7 });
    const twice = await store.openResultFlush(DEFINITIONS);
    twice.add(again.slice(0, 10));
    twice.add([{ ...extra, result: 6 }, ...again.slice(10), extra]);
    expect(await twice.commit()).toEqual({ written: 31, rejected: [] });
    const stored = await store.getMetricResults('sess');
    expect(stored).toHaveLength(31);
    expect(stored.find((s) => s.result.id === 'r5')?.result).toStrictEqual(again[5]);
    expect(stored.find((s) => s.result.id === 'r-new')?.result).toStrictEqual(extra);
  });

  it('abort leaves nothing behind and the connection serves the next flush', async () => {
    const aborted = await store.openResultFlush(DEFINITIONS);
    aborted.add([metricResult('gone', 'sess', { at: 1 })]);
    await aborted.abort();
    await aborted.abort(); // twice is harmless
    expect(() => aborted.add([])).toThrow('already committed or aborted');
    expect(await ids()).toEqual([]);
    // Both pool connections (maxConnections 2) are usable again. (The definitions are committed first: a flush that
    // inserts a new definition holds it until its commit, and the other flush's open would wait for that.)
    await store.writeMetricResults(DEFINITIONS, []);
    const [x, y] = await Promise.all([store.openResultFlush(DEFINITIONS), store.openResultFlush(DEFINITIONS)]);
    x.add([metricResult('x', 'sess', { at: 2 })]);
    y.add([metricResult('y', 'sess', { at: 3 })]);
    await Promise.all([x.commit(), y.commit()]);
    expect(await ids()).toEqual(['x', 'y']);
  });

  it('results of a failed commit are rolled back', async () => {
    // A constraint of the database's own that one row breaks: the COPY fails when the flush ends it.
    await admin(`ALTER TABLE ${schema}.metric_results ADD CONSTRAINT no_boom CHECK (reasoning <> 'boom')`);
    const flush = await store.openResultFlush(DEFINITIONS);
    flush.add([metricResult('ok', 'sess', { at: 2 }), { ...metricResult('bad', 'sess', { at: 1 }), reasoning: 'boom' }]);
    await expect(flush.commit()).rejects.toThrow(/no_boom/);
    expect(await ids()).toEqual([]);
    expect(await store.writeMetricResults(DEFINITIONS, [metricResult('after', 'sess')])).toEqual({ written: 1, rejected: [] });
  });

  it('stores a NUL character as U+FFFD and rejects a token count beyond its integer column, instead of failing the batch', async () => {
    const nul: MetricResult = { ...metricResult('nul', 'sess', { at: 1 }), reasoning: 'a\u0000b', details: { note: 'c\u0000d' } };
    const huge: MetricResult = { ...metricResult('huge', 'sess', { metric: RELEVANCY, at: 2 }), evaluationTotalTokenCount: 2 ** 31 };
    const expected = [['huge', ['2147483648 exceeds the PostgreSQL integer column (at most 2147483647)']]];
    const flush = await store.openResultFlush(DEFINITIONS);
    flush.add([metricResult('ok', 'sess', { at: 3 }), nul, huge]);
    const streamed = await flush.commit();
    expect(streamed.written).toBe(2);
    expect(streamed.rejected.map((r) => [r.id, r.reasons.map((x) => x.message)])).toEqual(expected);
    expect(streamed.rejected[0]?.reasons[0]?.path).toBe('evaluationTotalTokenCount');
    const written = await store.writeMetricResults(DEFINITIONS, [{ ...nul, id: 'nul-2' }, { ...huge, id: 'huge' }]);
    expect(written.written).toBe(1);
    expect(written.rejected.map((r) => [r.id, r.reasons.map((x) => x.message)])).toEqual(expected);
    const stored = new Map((await store.getMetricResults('sess', { recursive: true })).map((s) => [s.result.id, s.result]));
    expect([...stored.keys()].sort()).toEqual(['nul', 'nul-2', 'ok']);
    expect(stored.get('nul')?.reasoning).toBe('a\uFFFDb');
    expect(stored.get('nul')?.details).toEqual({ note: 'c\u0000d' }); // JSON escapes it: kept as it was
  });

  it('a flush stores nothing of a session deleted meanwhile (no orphan), rejects its results by name, commits the rest', async () => {
    await store.writeSessions([bareSession('gone', 0)]);
    const flush = await store.openResultFlush(DEFINITIONS);
    flush.add([metricResult('g-1', 'gone', { at: 1 }), metricResult('kept', 'sess', { at: 2 })]);
    expect(await store.deleteSessions(['gone'])).toEqual(['gone']);
    flush.add([metricResult('g-2', 'gone', { at: 3 })]);
    const outcome = await flush.commit();
    expect(outcome.written).toBe(1);
    expect(outcome.rejected.map((r) => [r.id, r.unstoredSession, r.reasons[0]?.message])).toEqual([
      ['g-1', 'gone', 'session "gone" is not stored (deleted while its results were computed?)'],
      ['g-2', 'gone', 'session "gone" is not stored (deleted while its results were computed?)'],
    ]);
    expect((await store.queryMetricResults()).map((r) => r.result.id)).toEqual(['kept']);
  });

  it('a deletion racing a result write on another connection leaves no orphan and no deadlock, in either order', async () => {
    const raw = new pg.Client(PG_URL);
    await raw.connect();
    try {
      await raw.query(`SET search_path = "${schema}"`);
      // A deletion in progress (deleteSessions' statements, uncommitted): the write waits for it, then finds the session gone.
      await store.writeSessions([bareSession('race', 0)]);
      await raw.query('BEGIN');
      await raw.query("SELECT id FROM sessions WHERE id = 'race' FOR UPDATE");
      await raw.query("DELETE FROM sessions WHERE id = 'race'");
      const flush = await store.openResultFlush(DEFINITIONS);
      flush.add([metricResult('r-1', 'race', { at: 1 }), metricResult('r-kept', 'sess', { at: 2 })]);
      const committed = flush.commit();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await raw.query('COMMIT');
      expect((await committed).rejected.map((r) => r.id)).toEqual(['r-1']);
      expect((await store.queryMetricResults()).map((r) => r.result.id)).toEqual(['r-kept']);

      // A write holding its session (lockStoredSessions, then a new row): the deletion waits for it, then removes the row.
      await store.writeSessions([bareSession('race2', 0)]);
      await store.writeMetricResults(DEFINITIONS, [metricResult('r2-0', 'race2', { at: 3 })]);
      await raw.query('BEGIN');
      await raw.query("SELECT id FROM sessions WHERE id = 'race2' ORDER BY id FOR KEY SHARE");
      await raw.query(`INSERT INTO metric_results
        SELECT (jsonb_populate_record(r, '{"id": "r2-late"}')).* FROM metric_results r WHERE id = 'r2-0'`);
      const deleted = store.deleteSessions(['race2']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await raw.query('COMMIT');
      expect(await deleted).toEqual(['race2']);
      expect((await store.queryMetricResults()).map((r) => r.result.id)).toEqual(['r-kept']);
    } finally {
      await raw.end();
    }
  });
});
