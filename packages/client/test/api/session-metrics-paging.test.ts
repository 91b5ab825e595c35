/**
 * `GET /sessions/{id}/metrics` and `GET /results` answer a big session's stored results a page at a time (a `Link`
 * to the next page) or, with `Accept: application/x-ndjson`, streamed one a line, read from the store a chunk at a
 * time: on SQLite and PostgreSQL the same.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '@mce/core';
import { MCEClient, createApiApp, defaultMceConfig, openStore } from '../../src/index.js';
import { NDJSON_CHUNK } from '../../src/api/ndjson.js';
import { needService, PG_URL } from '../../../../test-support/services.js';

const postgres = await needService('postgres');
const SCHEMA = `mce_api_paging_${process.pid}`;
const JSON_TYPE = { 'content-type': 'application/json' };
/** More tool calls than a chunk of the stream, so the stream reads the store more than once. */
const CALLS = NDJSON_CHUNK + 150;

const stores = [
  { name: 'SQLite', url: () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-paging-')), 'kg.db')}`, skip: false },
  { name: 'PostgreSQL', url: () => `${PG_URL}?schema=${SCHEMA}`, skip: !postgres },
];

afterAll(async () => {
  if (!postgres) return;
  const admin = new pg.Client(PG_URL);
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
});

/** A session of `calls` tool calls, each 1 ms longer than the one before. */
function bigSession(id: string, calls: number) {
  const toolCalls = Array.from({ length: calls }, (_, i) => ({ kind: 'ToolCall', id: `${id}-t${i}`, name: `tool ${i}`, toolName: 'lookup', startTime: 1000, endTime: 1001 + i }));
  return { id, startTime: 1000, endTime: 1001 + calls, serviceName: 'paging', toolCalls };
}

const lines = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe.each(stores)('stored results of a big session on $name', ({ url, skip }) => {
  it.skipIf(skip)('pages with a Link to the next page, streams as NDJSON, and refuses before the stream starts', async () => {
    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url()), cache: false });
    const app = createApiApp(client);
    try {
      const posted = await app.request('/sessions', { method: 'POST', body: JSON.stringify(bigSession('big', CALLS)), headers: JSON_TYPE });
      expect(posted.status).toBe(201);
      const computed = await app.request('/sessions/big/compute?metrics=Duration', { method: 'POST' });
      expect(computed.status).toBe(200);
      const whole = await client.getMetrics('big', { recursive: true, computeMissing: false });
      expect(whole).toHaveLength(CALLS + 1); // each call's Duration and the session's

      // Pages of 100 by default, each with the link to the next, until a page that is not full.
      const paged: ResultRecord[] = [];
      let next: string | null = '/sessions/big/metrics?recursive=true';
      let pages = 0;
      while (next) {
        const res: Response = await app.request(next);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { sessionId: string; results: ResultRecord[]; failed: []; skipped: [] };
        expect([body.sessionId, body.failed, body.skipped, body.results.length <= 100]).toEqual(['big', [], [], true]);
        paged.push(...body.results);
        next = res.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1] ?? null;
        pages++;
      }
      expect([pages, paged.map((r) => r.id)]).toEqual([Math.ceil((CALLS + 1) / 100), whole.map((r) => r.id)]);
      // The next page's link carries where this one ended (the cursor of its last result), not an offset: a page read
      // after it costs its own rows, where the 500th page of 1,000 by offset read 500,000 rows.
      const first = await app.request('/sessions/big/metrics?recursive=true&limit=3&offset=2');
      const cursor = Buffer.from(JSON.stringify([whole[4]!.timestamp, whole[4]!.id])).toString('base64url');
      expect(first.headers.get('link')).toBe(`</sessions/big/metrics?recursive=true&limit=3&cursor=${cursor}>; rel="next"`);
      const second = (await (await app.request(`/sessions/big/metrics?recursive=true&limit=3&cursor=${cursor}`)).json()) as { results: ResultRecord[] };
      expect(second.results.map((r) => r.id)).toEqual(whole.slice(5, 8).map((r) => r.id));
      const shaped = (id: string) => Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', id])).toString('base64url');
      for (const bad of ['nope!', Buffer.from('[1,2]').toString('base64url'), Buffer.from('["yesterday","x"]').toString('base64url'), 'A'.repeat(5000), shaped('a\u0000'), shaped('a\ud800')]) {
        const refused = await app.request(`/sessions/big/metrics?cursor=${bad}`);
        expect([refused.status, await refused.json()]).toEqual([400, { error: 'query parameter cursor is not one this API gave: follow the Link header of the page before' }]);
      }
      // The session's own results only, unless recursive.
      const own = (await (await app.request('/sessions/big/metrics')).json()) as { results: ResultRecord[] };
      expect(own.results.map((r) => r.level)).toEqual(['Session']);
      expect((await app.request('/sessions/big/metrics?limit=1001')).status).toBe(400);

      // NDJSON: every result, in the same order, past a chunk of the store's reads.
      const streamed = await app.request('/sessions/big/metrics?recursive=true', { headers: { accept: 'application/x-ndjson' } });
      expect([streamed.status, streamed.headers.get('content-type')]).toEqual([200, 'application/x-ndjson']);
      expect(lines(await streamed.text()).map((r) => r.id)).toEqual(whole.map((r) => r.id));
      const window = await app.request('/sessions/big/metrics?recursive=true&offset=998&limit=5', { headers: { accept: 'application/json, application/x-ndjson' } });
      expect(lines(await window.text()).map((r) => r.id)).toEqual(whole.slice(998, 1003).map((r) => r.id));
      // From a cursor on, past a chunk: each chunk read after the last row of the one before.
      const resumed = await app.request(`/sessions/big/metrics?recursive=true&cursor=${cursor}`, { headers: { accept: 'application/x-ndjson' } });
      expect(lines(await resumed.text()).map((r) => r.id)).toEqual(whole.slice(5).map((r) => r.id));
      const results = await app.request('/results?session=big&metrics=Duration&levels=ToolCall', { headers: { accept: 'application/x-ndjson' } });
      const rows = lines(await results.text()) as Array<{ result: { id: string } }>;
      expect(rows.map((r) => r.result.id)).toEqual(whole.filter((r) => r.level === 'ToolCall').map((r) => r.id));

      // Refusals are JSON with their status, the stream never started.
      const misspelt = await app.request('/sessions/big/metrics?metrics=Durration', { headers: { accept: 'application/x-ndjson' } });
      expect([misspelt.status, await misspelt.json()]).toEqual([400, { error: 'metrics: Unknown metric "Durration" (did you mean "Duration"?)' }]);
      const unknown = await app.request('/sessions/nope/metrics', { headers: { accept: 'application/x-ndjson' } });
      expect(unknown.status).toBe(404);
    } finally {
      await client.close();
    }
  });
});
