/**
 * The real computation side for the worker tests: MCEWorkerService over an MCEClient with the default
 * (deterministic) metric set and a PostgreSQL store in its own schema, filled with test sessions.
 */
import pg from 'pg';
import { MCEClient, MCEWorkerService, defaultMceConfig } from '@mce/client';
import { PostgresStore } from '@mce/store-postgres';
import type { BatchItem, BatchOutcome, BatchProcessor } from '@mce/worker';
import { testSession } from './sessions.js';

const silent = { warn: () => undefined };

export interface ServiceFixture {
  client: MCEClient;
  service: MCEWorkerService;
  schema: string;
  /** Results computed for one test session (every test session has the same shape). */
  resultsPerSession: number;
  /** Stored results: total, distinct sessions, and the smallest and largest count per session. */
  counts(): Promise<{ results: number; sessions: number; min: number; max: number }>;
  close(): Promise<void>;
}

/** A PostgreSQL store (fresh schema) holding `sessionIds`, and the service computing into it. */
export async function openService(pgUrl: string, schema: string, sessionIds: readonly string[]): Promise<ServiceFixture> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const store = new PostgresStore(pgUrl, { schema, logger: silent, maxConnections: 4 });
  await store.init();
  const sessions = sessionIds.map((id, i) => testSession(id, i));
  for (let i = 0; i < sessions.length; i += 500) await store.writeSessions(sessions.slice(i, i + 500));
  const client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false, env: {}, logger: silent });
  const [probe] = await client.compute([testSession('probe')]);
  const resultsPerSession = probe?.results.length ?? 0;
  return {
    client,
    service: new MCEWorkerService(client),
    schema,
    resultsPerSession,
    async counts() {
      const { rows } = await admin.query<{ results: string; sessions: string; min: string | null; max: string | null }>(
        `SELECT coalesce(sum(n), 0) AS results, count(*) AS sessions, min(n) AS min, max(n) AS max
           FROM (SELECT session_id, count(*) AS n FROM ${schema}.metric_results GROUP BY session_id) AS per_session`,
      );
      const row = rows[0];
      return { results: Number(row?.results ?? 0), sessions: Number(row?.sessions ?? 0), min: Number(row?.min ?? 0), max: Number(row?.max ?? 0) };
    },
    async close() {
      await client.close();
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** Wraps a processor: fails the next `failuresLeft` batches as an unreachable store would, waits `delayMs` first. */
export class FlakyProcessor implements BatchProcessor {
  failuresLeft = 0;
  delayMs = 0;
  calls = 0;
  /** While set, batches wait on it before being processed (`held` counts them): a test can act under a batch in flight. */
  gate: Promise<void> | undefined;
  held = 0;
  constructor(public inner: BatchProcessor) {}

  async processBatch(items: BatchItem[]): Promise<BatchOutcome> {
    this.calls++;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('store unreachable (simulated)');
    }
    if (this.gate) {
      this.held++;
      await this.gate;
    }
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return this.inner.processBatch(items);
  }
}

/** MCEWorkerService on a PostgreSQL store at a port nobody listens on: every batch fails as the store is down. */
export async function openUnreachableService(schema: string): Promise<{ service: MCEWorkerService; close(): Promise<void> }> {
  const store = new PostgresStore('postgres://postgres@127.0.0.1:1/test', { schema, logger: silent });
  const client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false, env: {}, logger: silent });
  return {
    service: new MCEWorkerService(client),
    async close() {
      await client.close();
      await store.close();
    },
  };
}

/**
 * A fresh database for tests whose worker runs in another process: the `mce-worker` executable opens the store its
 * URL names, in the `public` schema, so isolation is by database. Returns its URL and how to drop it.
 */
export async function createDatabase(pgUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
