/**
 * The web view behind API keys: a browser is sent to sign in, a key with the read scope signs it in (an HttpOnly,
 * SameSite=Strict cookie), and the cookie reads pages and the API but never writes or deletes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, createApiApp, defaultMceConfig, hashApiKey, openStore } from '../../src/index.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string };
const READER = 'mce_reader_key_for_the_sign_in_test_000000000';
const WRITER = 'mce_writer_key_for_the_sign_in_test_000000000';
const HTML = { accept: 'text/html,application/xhtml+xml' };

describe('web view sign-in', () => {
  let client: MCEClient;
  let app: ReturnType<typeof createApiApp>;
  beforeAll(async () => {
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-sign-in-')), 'kg.db')}`), cache: false });
    await client.store.writeSessions([example as never]);
    app = createApiApp(client, {
      keys: [
        { name: 'viewer', hash: hashApiKey(READER), scopes: ['read'] },
        { name: 'ingest', hash: hashApiKey(WRITER), scopes: ['write'] },
      ],
    });
  });
  afterAll(async () => {
    await client.store.close();
    await client.close();
  });

  const signIn = (key: string, headers: Record<string, string> = {}) =>
    app.request('http://localhost/view/sign-in', { method: 'POST', body: new URLSearchParams({ key }), headers: { host: 'localhost', ...headers } });

  it('sends a browser without a key to the sign-in form; an API client still gets 401', async () => {
    const page = await app.request('/', { headers: HTML });
    expect([page.status, page.headers.get('location')]).toEqual([303, '/view/sign-in']);
    const form = await app.request('/view/sign-in', { headers: HTML });
    expect(form.status).toBe(200);
    expect(await form.text()).toMatch(/<label for="key">API key with the read scope<\/label>\s*<input id="key" name="key" type="password"/);
    const api = await app.request('/sessions');
    expect([api.status, api.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="mce"']);
  });

  it('signs in with a read key: the cookie is HttpOnly and SameSite=Strict, and reads the pages and the API', async () => {
    const res = await signIn(READER);
    expect([res.status, res.headers.get('location')]).toEqual([303, '/']);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^mce_key=mce_reader_key[^;]*; Path=\/; HttpOnly; SameSite=Strict$/);
    const jar = { cookie: cookie.split(';')[0]! };
    const page = await app.request('/', { headers: { ...HTML, ...jar } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(example.id);
    expect((await app.request(`/view/sessions/${example.id}`, { headers: { ...HTML, ...jar } })).status).toBe(200);
    expect((await app.request('/sessions', { headers: jar })).status).toBe(200);
  });

  it('never lets the cookie write or delete, and refuses a wrong key, a key without read, and a form from another site', async () => {
    const jar = { cookie: `mce_key=${READER}` };
    const del = await app.request(`/sessions/${example.id}`, { method: 'DELETE', headers: jar });
    expect(del.status).toBe(401);
    expect((await client.store.sessionExists([example.id])).size).toBe(1);
    // The writer's key in the cookie does not write either: the cookie is read only, whatever the key.
    const posted = await app.request(`/sessions/${example.id}/compute`, { method: 'POST', body: '{}', headers: { cookie: `mce_key=${WRITER}`, 'content-type': 'application/json' } });
    expect(posted.status).toBe(401);
    const wrong = await signIn('mce_nobody');
    expect([wrong.status, wrong.headers.get('set-cookie')]).toEqual([401, null]);
    expect(await wrong.text()).toContain('<p class="error" role="alert">unknown API key</p>');
    const writer = await signIn(WRITER);
    expect([writer.status, writer.headers.get('set-cookie')]).toEqual([403, null]);
    expect(await writer.text()).toContain('API key ingest lacks the read scope the web view needs');
    const forged = await signIn(READER, { origin: 'https://evil.example' });
    expect([forged.status, forged.headers.get('set-cookie')]).toEqual([403, null]);
  });

  it('signs out: the cookie is cleared', async () => {
    const res = await app.request('/view/sign-out', { headers: { cookie: `mce_key=${READER}` } });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/view/sign-in']);
    expect(res.headers.get('set-cookie')).toMatch(/^mce_key=; Max-Age=0; Path=\//);
  });
});
