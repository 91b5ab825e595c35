// The benchmark's real processor: MCEWorkerService (default deterministic metric set, no cache) on the PostgreSQL
// store in the benchmark's schema; and the writing of the benchmark sessions into that store.
import pg from 'pg';
import { MCEClient, MCEWorkerService, defaultMceConfig } from '@mce/client';
import { PostgresStore } from '@mce/store-postgres';

const silent = { warn: () => undefined };

export async function openServiceProcessor({ pgUrl, schema, recursive = true }) {
  const store = new PostgresStore(pgUrl, { schema, logger: silent });
  const config = defaultMceConfig();
  // recursive: false keeps only the Session-level metrics (no per-call results).
  config.engine.recursive = recursive;
  const client = await MCEClient.open({ config, store, cache: false, env: {}, logger: silent });
  return {
    processor: new MCEWorkerService(client),
    close: async () => {
      await client.close();
      await store.close();
    },
  };
}

/** Writes the synthetic sessions `make(i)` of `ids` (ids[i] = make(i).id) unless the schema already holds them all (or `fresh`). */
export async function writeBenchSessions({ pgUrl, schema, ids, fresh, make }) {
  const store = new PostgresStore(pgUrl, { schema, logger: silent });
  await store.init();
  const present = fresh ? new Set() : await store.sessionExists(ids);
  let wroteSeconds;
  if (present.size < ids.length) {
    const started = performance.now();
    const missing = [];
    for (let i = 0; i < ids.length; i++) if (!present.has(ids[i])) missing.push(i);
    for (let i = 0; i < missing.length; i += 250) await store.writeSessions(missing.slice(i, i + 250).map((n) => make(n)));
    wroteSeconds = (performance.now() - started) / 1000;
  }
  return { wroteSeconds, close: () => store.close() };
}

/** `work` on a short-lived connection of its own. */
async function withConnection(pgUrl, work) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Empties the benchmark schema's results (each pass starts from the same table size; nothing piles up). */
export function clearBenchResults({ pgUrl, schema }) {
  return withConnection(pgUrl, async (client) => {
    await client.query(`TRUNCATE ${schema}.metric_results`);
    // Every pass starts right after a checkpoint: the first change of each page after one is logged whole, and a
    // checkpoint falling inside one pass and not another would make their PostgreSQL costs differ.
    await client.query('CHECKPOINT').catch(() => undefined); // needs superuser or pg_checkpoint; best effort
  });
}

/** Results stored in the benchmark schema, and for how many sessions. */
export function countBenchResults({ pgUrl, schema }) {
  return withConnection(pgUrl, async (client) => {
    const { rows } = await client.query(`SELECT count(*) AS results, count(DISTINCT session_id) AS sessions FROM ${schema}.metric_results`);
    return { results: Number(rows[0].results), sessions: Number(rows[0].sessions) };
  });
}

/** Removes the benchmark schema (sessions included). */
export function dropBenchSchema({ pgUrl, schema }) {
  return withConnection(pgUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}
