/**
 * Deleting a session through MCEClient on the real stores: a session ingested in two parts (two runs, reconciled in
 * the store) and computed, then deleted, leaves no row of it in any table, and ingested and computed again it is
 * stored as on a fresh store. Another session stays as it was.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionComputation } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore, type KnowledgeGraphStore } from '../src/index.js';
import { PG_URL, needService } from '../../../test-support/services.js';
import { postgresRowsMentioning, sqliteRowsMentioning } from '../../store/test/support/leftovers.js';

const examples = new URL('../../../examples/', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mce-delete-'));
const TRIP = 'trip-2026-001';
// The multi-agent trace as two exports: the first 7 spans, and the rest (their parents among them). Each export names
// the session on its resource, as an exporter configured with it does (only the root span does in the example).
const lines = readFileSync(join(examples, 'traces/multi-agent.jsonl'), 'utf8').trimEnd().split('\n').map((line) => {
  const doc = JSON.parse(line) as { resourceSpans: { resource: { attributes: unknown[] } }[] };
  for (const rs of doc.resourceSpans) rs.resource.attributes.push({ key: 'session.id', value: { stringValue: TRIP } });
  return JSON.stringify(doc);
});
const parts = [join(dir, 'part1.jsonl'), join(dir, 'part2.jsonl')];
writeFileSync(parts[0]!, `${lines.slice(0, 7).join('\n')}\n`);
writeFileSync(parts[1]!, `${lines.slice(7).join('\n')}\n`);
const WEATHER = join(examples, 'sessions/single-agent-tool.json');

const pgUp = await needService('postgres');
const PREFIX = `mce_delete_${process.pid}`;
let n = 0;

afterAll(async () => {
  if (!pgUp) return;
  const client = new pg.Client(PG_URL);
  await client.connect();
  const { rows } = await client.query<{ s: string }>('SELECT nspname AS s FROM pg_namespace WHERE nspname LIKE $1', [`${PREFIX}%`]);
  for (const { s } of rows) await client.query(`DROP SCHEMA "${s}" CASCADE`);
  await client.end();
});

interface Adapter {
  open(): Promise<{ store: KnowledgeGraphStore; rowsMentioning(text: string): Promise<Record<string, number>> }>;
}
const adapters: [string, boolean, Adapter][] = [
  ['SQLite', true, {
    open: async () => {
      const file = join(dir, `kg-${++n}.db`);
      return { store: await openStore(`sqlite:${file}`), rowsMentioning: async (text) => sqliteRowsMentioning(file, text) };
    },
  }],
  ['PostgreSQL', pgUp, {
    open: async () => {
      const schema = `${PREFIX}_${++n}`;
      return { store: await openStore(PG_URL, { schema }), rowsMentioning: (text) => postgresRowsMentioning(PG_URL, schema, text) };
    },
  }],
];

/** What a computation says, without what differs between runs (result ids, timestamps). */
const shape = (c: SessionComputation) => c.results.map((r) => `${r.name} ${r.level} ${r.measures} ${r.result}`).sort();

/**
 * Both parts ingested by separate runs, the session computed after each (the first part's implicit MAS call and its
 * results are removed when the second part's workflow span comes); the last computation.
 */
async function ingestAndCompute(client: MCEClient): Promise<SessionComputation> {
  let computation: SessionComputation | undefined;
  for (const part of parts) {
    expect((await client.ingest([part])).sessionIds).toEqual([TRIP]);
    [computation] = await client.computeAndStore(TRIP);
  }
  return computation!;
}

describe.each(adapters)('deleting a session on %s', (_name, available, adapter) => {
  it.skipIf(!available)('a session ingested in two parts and computed, deleted, leaves no row; ingested again it is new', async () => {
    const { store, rowsMentioning } = await adapter.open();
    await using client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    try {
      await client.ingest([WEATHER]);
      await client.computeAndStore('weather-001');
      const weather = await client.getMetrics('weather-001', { recursive: true });
      const first = await ingestAndCompute(client);
      expect(first.failed).toEqual([]);
      const before = await rowsMentioning(TRIP);
      expect(before.sessions).toBe(1);
      // Both computations' results, but those measuring the implicit MAS call the second part removed.
      const stored = await client.getMetrics(TRIP, { recursive: true });
      expect(before.metric_results).toBe(stored.length);
      expect(stored.length).toBeGreaterThan(first.results.length);

      expect(await client.deleteSessions([TRIP, 'nope', TRIP])).toEqual([TRIP]);
      expect(Object.entries(await rowsMentioning(TRIP)).filter(([, count]) => count > 0)).toEqual([]);
      expect(await store.getSession(TRIP)).toBeUndefined();
      expect(await client.getMetrics('weather-001', { recursive: true })).toEqual(weather);
      expect(await client.deleteSessions(TRIP)).toEqual([]);

      // Again, into the store it was deleted from, and into a fresh one: the same session, the same results.
      const again = await ingestAndCompute(client);
      const fresh = await adapter.open();
      await using freshClient = await MCEClient.open({ config: defaultMceConfig(), store: fresh.store, cache: false });
      try {
        const clean = await ingestAndCompute(freshClient);
        expect(await store.getSession(TRIP)).toStrictEqual(await fresh.store.getSession(TRIP));
        expect(shape(again)).toEqual(shape(clean));
        expect(shape(again)).toEqual(shape(first));
        const storedAgain = (await client.getMetrics(TRIP, { recursive: true })).map((r) => `${r.name} ${r.level} ${r.measures} ${r.result}`);
        const storedClean = (await freshClient.getMetrics(TRIP, { recursive: true })).map((r) => `${r.name} ${r.level} ${r.measures} ${r.result}`);
        expect(storedAgain.sort()).toEqual(storedClean.sort());
      } finally {
        await fresh.store.close();
      }
    } finally {
      await store.close();
    }
  });
});
