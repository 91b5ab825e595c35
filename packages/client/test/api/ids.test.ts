/**
 * Ids the stores cannot keep apart or hold alike are refused at the edge, on SQLite and PostgreSQL the same: a lone
 * surrogate (two such ids became one on PostgreSQL; on SQLite the session could not be asked for by URL), a NUL, an
 * id over MAX_KEY_BYTES (a 500 with PostgreSQL's raw error text), a NUL in a name (PostgreSQL dropped it).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_KEY_BYTES } from '@mce/core';
import { MCEClient, createApiApp, defaultMceConfig, openStore } from '../../src/index.js';
import { needService, PG_URL } from '../../../../test-support/services.js';
import { writeFileSync } from 'node:fs';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string };
const JSON_TYPE = { 'content-type': 'application/json' };
const postgres = await needService('postgres');
const SCHEMA = `mce_api_ids_${process.pid}`;

const stores = [
  { name: 'SQLite', url: () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-ids-')), 'kg.db')}`, skip: false },
  { name: 'PostgreSQL', url: () => `${PG_URL}?schema=${SCHEMA}`, skip: !postgres },
];

afterAll(async () => {
  if (!postgres) return;
  const admin = new pg.Client(PG_URL);
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
});

describe.each(stores)('ids on $name', ({ url, skip }) => {
  it.skipIf(skip)('refuses lone surrogates, NULs and over-long ids with 400 naming the field; two ids stay two', async () => {
    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url()), cache: false });
    const app = createApiApp(client);
    const post = async (session: object) => {
      const res = await app.request('/sessions', { method: 'POST', body: JSON.stringify(session), headers: JSON_TYPE });
      return [res.status, ((await res.json()) as { error?: string }).error];
    };
    try {
      expect(await post({ ...example, id: 'a\ud800' })).toEqual([400, expect.stringMatching(/^not an mce session document: id \(line 1, column \d+\): must not contain a lone surrogate/)]);
      expect(await post({ ...example, id: 'a\udfff' })).toEqual([400, expect.stringContaining('id (line 1')]);
      expect(await post({ ...example, id: 'a\u0000b' })).toEqual([400, expect.stringContaining('must not contain a control character')]);
      expect(await post({ ...example, id: 'x'.repeat(MAX_KEY_BYTES + 1) })).toEqual([400, expect.stringContaining(`must be at most ${MAX_KEY_BYTES} bytes in UTF-8`)]);
      expect(await post({ ...example, id: 'é'.repeat(MAX_KEY_BYTES / 2 + 1) })).toEqual([400, expect.stringContaining('bytes in UTF-8')]); // 2 bytes each
      expect(await post({ ...example, id: 'ok', serviceName: 'svc\u0000' })).toEqual([400, expect.stringContaining('serviceName (line 1')]);
      // A pair is no lone surrogate; the longest id is kept whole.
      const longest = 'x'.repeat(MAX_KEY_BYTES);
      expect(await post({ ...example, id: 'emoji-😀' })).toEqual([201, undefined]);
      expect(await post({ ...example, id: longest })).toEqual([201, undefined]);
      const ids = ((await (await app.request('/sessions?limit=10')).json()) as { id: string }[]).map((s) => s.id).sort();
      expect(ids).toEqual(['emoji-😀', longest].sort());
      expect((await app.request(`/sessions/${encodeURIComponent('emoji-😀')}`)).status).toBe(200);
      expect((await app.request(`/sessions/${longest}`, { method: 'DELETE' })).status).toBe(204);
      // A path holding a byte sequence no UTF-8 text has is no id of a stored session.
      expect((await app.request('/sessions/a%ED%A0%80')).status).toBe(404);
    } finally {
      await client.store.close();
      await client.close();
    }
  });

  it.skipIf(skip)('refuses, as a trace is ingested, a session id from an attribute that no store can keep (exit 2, named)', async () => {
    const ws = tempWorkspace();
    ws.env.MCE_STORE_URL = url();
    const span = (session: string) =>
      `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"chat gpt-4o","startTimeUnixNano":"1767261600000000000","endTimeUnixNano":"1767261601000000000",` +
      `"attributes":[{"key":"session.id","value":{"stringValue":${session}}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}`;
    const file = join(ws.dir, 'traces.json');
    writeFileSync(file, `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${span('"a\\ud800"')}]}]}]}`);
    const run = await runCli(['ingest', file], ws);
    expect([run.code, run.stderr]).toEqual([2, 'mce: session id "a\\ud800" holds a lone surrogate (\\ud800–\\udfff without its pair), which no UTF-8 text can hold\n']);
  });

  it.skipIf(skip)('keeps a service.name from a trace holding a NUL or a lone surrogate as U+FFFD on every store, naming the span', async () => {
    const ws = tempWorkspace();
    ws.env.MCE_STORE_URL = url();
    const traced = (session: string, spanId: string, service: string) =>
      `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":${service}}}]},"scopeSpans":[{"spans":[` +
      `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"${spanId}","name":"chat gpt-4o","startTimeUnixNano":"1767261600000000000","endTimeUnixNano":"1767261601000000000",` +
      `"attributes":[{"key":"session.id","value":{"stringValue":"${session}"}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}]}]}]}\n`;
    const file = join(ws.dir, 'traces.jsonl');
    writeFileSync(file, traced('svc-nul', 'b7ad6b7169203331', '"svc\\u0000x"') + traced('svc-lone', 'b7ad6b7169203332', '"svc\\ud800"'));
    const run = await runCli(['ingest', file, '--json'], ws);
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { message: string; line?: number }));
    expect([run.code, warnings.map((w) => [w.line, w.message])]).toEqual([0, [
      [1, 'span b7ad6b7169203331: service.name "svc\\u0000x" holds a NUL character (U+0000), which no store\'s text can hold: kept as "svc\ufffdx"'],
      [2, 'span b7ad6b7169203332: service.name "svc\ud800" holds a lone surrogate (\\ud800–\\udfff without its pair), which no store\'s text can hold: kept as "svc\ufffd"'],
    ]]);
    const listed = await runCli(['sessions', 'list', '--json'], ws);
    // (The PostgreSQL schema is this file's: the other tests' sessions are there too.)
    expect(listed.json<Array<{ id: string; serviceName?: string }>>().filter((s) => s.id.startsWith('svc-')).map((s) => [s.id, s.serviceName]).sort()).toEqual([['svc-lone', 'svc\ufffd'], ['svc-nul', 'svc\ufffdx']]);
    // What a session's service is filtered by: the name as stored, on either store.
    const byService = await runCli(['sessions', 'list', '--service', 'svc\ufffdx', '--json'], ws);
    expect(byService.json<Array<{ id: string }>>().map((s) => s.id)).toEqual(['svc-nul']);
  });
});
