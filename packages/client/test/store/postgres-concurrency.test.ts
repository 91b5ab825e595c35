/**
 * Two separate processes write results and session parts into one PostgreSQL schema at the same time: nothing
 * is lost (every result stored once, every session part merged) and neither writer fails.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needService, PG_URL } from '../../../../test-support/services.js';
import { openStore } from '../../src/store/index.js';

const run = promisify(execFile);
const available = await needService('postgres');
const SCHEMA = `mce_store_concurrency_${process.pid}`;
const WRITER = fileURLToPath(new URL('./support/concurrent-writer.mjs', import.meta.url));
const BATCHES = 8;
const BATCH_SIZE = 500;

describe.skipIf(!available)('PostgreSQL store: concurrent writers in two processes', () => {
  afterAll(async () => {
    const client = new pg.Client(PG_URL);
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await client.end();
  });

  it('lose nothing', async () => {
    const startAt = String(Date.now() + 4000); // both processes start writing at the same moment
    const writer = (tag: string) =>
      run(process.execPath, [WRITER, PG_URL, SCHEMA, tag, startAt, String(BATCHES), String(BATCH_SIZE)], { timeout: 60_000 });
    const outputs = await Promise.all([writer('A'), writer('B')]);
    expect(outputs.map((o) => JSON.parse(o.stdout))).toEqual([
      { tag: 'A', written: BATCHES * (BATCH_SIZE + 20) },
      { tag: 'B', written: BATCHES * (BATCH_SIZE + 20) },
    ]);

    const store = await openStore(PG_URL, { schema: SCHEMA });
    try {
      const client = new pg.Client(PG_URL);
      await client.connect();
      const { rows } = await client.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE id LIKE 'shared-%')::int AS shared FROM "${SCHEMA}".metric_results`,
      );
      await client.end();
      expect(rows[0]).toEqual({ n: 2 * BATCHES * BATCH_SIZE + BATCHES * 20, shared: BATCHES * 20 });

      const all = await store.getMetricResults('session-1', { recursive: true });
      expect(all).toHaveLength(2 * BATCHES * (BATCH_SIZE / 5));

      for (let k = 0; k < 5; k++) {
        const session = await store.getSession(`session-${k}`);
        const ids = session?.toolCalls.map((c) => c.id).sort();
        const expected = ['A', 'B'].flatMap((tag) => Array.from({ length: BATCHES }, (_, b) => `${tag}-${b}`)).sort();
        expect(ids).toEqual(expected);
        expect(session?.traceIds.slice().sort()).toEqual(
          ['A', 'B'].flatMap((tag) => Array.from({ length: BATCHES }, (_, b) => `${tag}-trace-${b}`)).sort(),
        );
        expect(session?.startTime).toBe(1000);
        expect(session?.endTime).toBe(2000 + BATCHES - 1);
        // Positions stay unique: each part was appended after what the other writer had committed.
        const { rows: seqs } = await (async () => {
          const c = new pg.Client(PG_URL);
          await c.connect();
          try {
            return await c.query(`SELECT count(DISTINCT seq)::int AS n FROM "${SCHEMA}".calls WHERE session_id = $1`, [`session-${k}`]);
          } finally {
            await c.end();
          }
        })();
        expect(seqs[0]).toEqual({ n: 2 * BATCHES });
      }
    } finally {
      await store.close();
    }
  });
});
