/**
 * A read-only command pointed at a PostgreSQL schema holding no store (a misspelt `schema=`) is refused and creates
 * nothing; a command that writes creates the schema and says so.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { needService, PG_URL } from '../../../../test-support/services.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const available = await needService('postgres');
const SCHEMA = `mce_must_exist_${process.pid}`;

async function query(sql: string, params: unknown[] = []) {
  const client = new pg.Client(PG_URL);
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}
const schemaExists = async () => ((await query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [SCHEMA])).rowCount ?? 0) > 0;

describe.skipIf(!available)('a PostgreSQL store that must exist', () => {
  afterAll(async () => {
    await query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  });

  it('read-only commands refuse a schema without a store (exit 2) and create nothing; ingest creates it and warns', async () => {
    const ws = tempWorkspace();
    ws.env.MCE_STORE_URL = `${PG_URL}?schema=${SCHEMA}`;
    for (const argv of [['sessions', 'list'], ['kg', 'results'], ['kg', 'summary']]) {
      const run = await runCli(argv, ws);
      expect([argv.join(' '), run.code, run.stderr]).toEqual([
        argv.join(' '),
        2,
        `mce: no store in PostgreSQL schema ${SCHEMA} at ${PG_URL}: nothing has been ingested there yet, or schema= is misspelt\n`,
      ]);
    }
    expect(await schemaExists()).toBe(false);
    const ingested = await runCli(['ingest', new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url).pathname], ws);
    expect(ingested.code).toBe(0);
    expect(ingested.stderr).toContain(`PostgreSQL schema ${SCHEMA} did not exist: created it, empty`);
    const listed = await runCli(['sessions', 'list', '--json'], ws);
    expect([listed.code, listed.json<Array<{ id: string }>>().map((s) => s.id)]).toEqual([0, ['weather-001']]);
  });
});
