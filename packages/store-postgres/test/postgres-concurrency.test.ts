/**
 * Two separate processes write results and session parts into one PostgreSQL schema at the same time: nothing
 * is lost (every result stored once, every session part merged) and neither writer fails.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needService, PG_URL } from '../../../test-support/services.js';
import { openStore } from '@mce/store';

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
    const writers = ['A', 'B'].map((tag) => {
      const child = spawn(process.execPath, [WRITER, PG_URL, SCHEMA, tag, String(BATCHES), String(BATCH_SIZE)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const ready = new Promise<void>((resolve) => {
        const check = () => (out.startsWith('ready\n') ? resolve() : child.stdout.once('data', check));
        check();
      });
      const exited = once(child, 'exit').then(([code]) => ({ code, out }));
      return { child, ready, exited };
    });
    // Both processes loaded and connected: start them at the same moment.
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.child.stdin.end('go\n');
    const outcomes = await Promise.all(writers.map((w) => w.exited));
    expect(outcomes.map((o) => o.code)).toEqual([0, 0]);
    const reports = outcomes.map((o) => JSON.parse(o.out.slice('ready\n'.length)) as { tag: string; written: number; started: number; finished: number });
    expect(reports.map(({ tag, written }) => ({ tag, written }))).toEqual([
      { tag: 'A', written: BATCHES * (BATCH_SIZE + 20) },
      { tag: 'B', written: BATCHES * (BATCH_SIZE + 20) },
    ]);
    // The two writing periods overlap: the writes really were concurrent.
    const [a, b] = reports as [(typeof reports)[0], (typeof reports)[0]];
    expect(a.started < b.finished && b.started < a.finished).toBe(true);

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
