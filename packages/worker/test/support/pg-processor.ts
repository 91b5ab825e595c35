/**
 * A real-enough BatchProcessor for the AMQP tests: knows the sessions listed in a PostgreSQL table and, per batch,
 * upserts one row per (runId) in ONE transaction, counting how often each row was written. "Exactly once" is then a
 * row count; overwrites by redelivered messages show in `writes`.
 */
import pg from 'pg';
import type { BatchItem, BatchOutcome, BatchProcessor } from '@mce/worker';

export class PgResultsProcessor implements BatchProcessor {
  calls = 0;
  /** Batches to fail (as an unreachable store) before working. */
  failuresLeft = 0;
  /** Wait inside each batch before the commit (to have a batch in flight when something happens). */
  delayMs = 0;
  private pool: pg.Pool;

  private constructor(
    private url: string,
    readonly schema: string,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 2000 });
    this.pool.on('error', () => undefined);
  }

  static async create(url: string, schema: string, sessionIds: string[]): Promise<PgResultsProcessor> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(`CREATE TABLE ${schema}.sessions (session_id text PRIMARY KEY)`);
      await admin.query(
        `CREATE TABLE ${schema}.results (run_id text PRIMARY KEY, session_id text NOT NULL, writes int NOT NULL DEFAULT 1)`,
      );
      await admin.query(`INSERT INTO ${schema}.sessions SELECT unnest($1::text[])`, [sessionIds]);
    } finally {
      await admin.end();
    }
    return new PgResultsProcessor(url, schema);
  }

  /** Points the processor at another server (e.g. a wrong port to make the store unreachable, then back). */
  async reconnect(url: string): Promise<void> {
    const old = this.pool;
    this.url = url;
    this.pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 2000 });
    this.pool.on('error', () => undefined);
    await old.end();
  }

  async processBatch(items: BatchItem[]): Promise<BatchOutcome> {
    this.calls++;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('store unreachable (simulated)');
    }
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const known = await client.query<{ session_id: string }>(
        `SELECT session_id FROM ${this.schema}.sessions WHERE session_id = ANY($1::text[])`,
        [items.map((item) => item.sessionId)],
      );
      const knownIds = new Set(known.rows.map((row) => row.session_id));
      const toWrite = items.filter((item) => knownIds.has(item.sessionId));
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      if (toWrite.length > 0) {
        await client.query(
          `INSERT INTO ${this.schema}.results (run_id, session_id)
           SELECT * FROM unnest($1::text[], $2::text[])
           ON CONFLICT (run_id) DO UPDATE SET writes = ${this.schema}.results.writes + 1`,
          [toWrite.map((item) => item.runId), toWrite.map((item) => item.sessionId)],
        );
      }
      await client.query('COMMIT');
      return {
        items: items.map((item) =>
          knownIds.has(item.sessionId)
            ? { sessionId: item.sessionId, status: 'ok', results: 1, failedMetrics: 0, evaluationTokens: 10, evaluationCost: 0.001 }
            : { sessionId: item.sessionId, status: 'unknown-session', results: 0, failedMetrics: 0 },
        ),
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Rows per session and total writes. */
  async counts(): Promise<{ rows: number; sessions: number; writes: number }> {
    const result = await this.pool.query<{ rows: string; sessions: string; writes: string | null }>(
      `SELECT count(*) AS rows, count(DISTINCT session_id) AS sessions, sum(writes) AS writes FROM ${this.schema}.results`,
    );
    const row = result.rows[0];
    return { rows: Number(row?.rows ?? 0), sessions: Number(row?.sessions ?? 0), writes: Number(row?.writes ?? 0) };
  }

  async close(dropSchema = true): Promise<void> {
    if (dropSchema) await this.pool.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`).catch(() => undefined);
    await this.pool.end();
  }
}
