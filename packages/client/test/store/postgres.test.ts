import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needService, PG_URL } from '../../../../test-support/services.js';
import { openStore, PostgresStore } from '../../src/store/index.js';
import { storeConformance } from './support/conformance.js';
import { bareSession } from './support/sessions.js';

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

  storeConformance('PostgreSQL', {
    open: (logger) => openStore(PG_URL, { logger, schema: `${PREFIX}_${++n}` }),
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
      const { rows } = await client.query(`SELECT version FROM "${schema}".schema_migrations`);
      await client.end();
      expect(rows).toEqual([{ version: 1 }]);
      await a.close();
      await b.close();
    });
  });
});
