import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  API_SCOPES,
  ApiKeys,
  InsecureServeError,
  MCEClient,
  apiKeysFromEnv,
  createApiApp,
  defaultMceConfig,
  hashApiKey,
  newApiKey,
  openStore,
  parseMceConfig,
  routeAccess,
  serveApi,
  type ApiKey,
  type ApiScope,
} from '../../src/index.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';
import { RateLimiter } from '../../src/api/rate-limit.js';
import { receiverPipeline } from '../../src/receiver/pipeline.js';
import { DEFAULT_RECEIVER_SETTINGS } from '../../src/receiver/settings.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string };
const JSON_TYPE = { 'content-type': 'application/json' };

/** Log lines as the API writes them, kept for the test to read. */
function capturingLogger() {
  const lines: Array<{ level: string; message: string } & Record<string, unknown>> = [];
  const at = (level: string) => (fields: object, message: string) => lines.push({ level, message, ...fields });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

/** A key of each single scope, one with every scope but `scope`, and their plain text. */
function keysFor() {
  const plain = Object.fromEntries(API_SCOPES.map((s) => [s, newApiKey()])) as Record<ApiScope, string>;
  const allBut = Object.fromEntries(API_SCOPES.map((s) => [s, newApiKey()])) as Record<ApiScope, string>;
  const keys: ApiKey[] = [
    ...API_SCOPES.map((s) => ({ name: `only-${s}`, hash: hashApiKey(plain[s]), scopes: [s] })),
    ...API_SCOPES.map((s) => ({ name: `all-but-${s}`, hash: hashApiKey(allBut[s]), scopes: API_SCOPES.filter((o) => o !== s) })),
  ];
  return { keys, plain, allBut };
}

describe('API keys and scopes', () => {
  let client: MCEClient;
  let dir: string;
  const { keys, plain, allBut } = keysFor();
  /** Stores the example session under `id` (through an app without keys over the same store). */
  let store: (id: string) => Promise<void>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mce-auth-'));
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    const open = createApiApp(client);
    store = async (id) => {
      const res = await open.request('/sessions', { method: 'POST', body: JSON.stringify({ ...example, id }), headers: JSON_TYPE });
      expect(res.status).toBe(201);
    };
  });
  afterAll(async () => {
    await client.store.close();
    await client.close();
  });

  it('hashes a key with SHA-256 and finds it by the key, never by its hash', () => {
    expect(hashApiKey('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = newApiKey();
    expect(key).toMatch(/^mce_[A-Za-z0-9_-]{43}$/);
    expect(newApiKey()).not.toBe(key);
    const table = new ApiKeys([{ name: 'ci', hash: hashApiKey(key), scopes: ['read'] }]);
    expect(table.find(key)?.name).toBe('ci');
    expect(table.find(hashApiKey(key))).toBeUndefined();
    expect(table.find(`${key}x`)).toBeUndefined();
    expect(() => new ApiKeys([{ name: 'a', hash: hashApiKey('1'), scopes: ['read'] }, { name: 'a', hash: hashApiKey('2'), scopes: ['read'] }])).toThrow(/given twice/);
  });

  it('reads keys from MCE_API_KEYS and MCE_API_TOKEN, an error naming the entry and never the key', () => {
    const key = 'k'.repeat(20);
    expect(apiKeysFromEnv({ MCE_API_KEYS: `ci:${key}:read+write, ops:${key}2:admin`, MCE_API_TOKEN: 'shared-token-1234' })).toEqual([
      { name: 'ci', hash: hashApiKey(key), scopes: ['read', 'write'] },
      { name: 'ops', hash: hashApiKey(`${key}2`), scopes: ['admin'] },
      { name: 'token', hash: hashApiKey('shared-token-1234'), scopes: ['read', 'write', 'admin'] },
    ]);
    const secret = 'secret-secret-secret';
    const error = (text: string) => {
      try {
        apiKeysFromEnv({ MCE_API_KEYS: text });
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(error(`ci:${secret}:read+delete`)).toBe('environment variable MCE_API_KEYS: entry 1 (ci): scopes must be read, write, admin joined by + (got "read+delete")');
    expect(error(`ci:${secret}`)).toBe('environment variable MCE_API_KEYS: entry 1: expected name:key:scope+scope (2 colon-separated parts)');
    expect(error(`ci:${secret}:read,ci2:short:read`)).toBe('environment variable MCE_API_KEYS: entry 2 (ci2): the key must have at least 16 characters (`mce api-key create` makes one)');
    expect(error(`c i:${secret}:read`)).toMatch(/^environment variable MCE_API_KEYS: entry 1: a key name is/);
  });

  it('reads api.keys from mce_config.yaml: a hash, never a key, and the scopes known', () => {
    const hash = hashApiKey('x'.repeat(30));
    expect(parseMceConfig(`api:\n  keys:\n    - { name: ci, hash: "${hash}", scopes: [read, write] }\n`).api.keys).toEqual([{ name: 'ci', hash, scopes: ['read', 'write'] }]);
    expect(() => parseMceConfig('api:\n  keys:\n    - { name: ci, hash: "mce_plaintextkey", scopes: [read] }\n')).toThrow(/mce_config.yaml:3: api.keys.0.hash: must match pattern/);
    expect(() => parseMceConfig(`api:\n  keys:\n    - { name: ci, hash: "${hash}", scopes: [delete] }\n`)).toThrow(/api.keys.0.scopes.0: must be one of read, write, admin/);
    expect(() => parseMceConfig(`api:\n  keys:\n    - { name: ci, hash: "${hash}", scopes: [read] }\n    - { name: ci, hash: "${hash}", scopes: [admin] }\n`)).toThrow(
      /mce_config.yaml:4: api.keys.1.name: key name ci is given twice/,
    );
  });

  it('needs a scope by method: GET read, POST write, DELETE admin; health and OpenAPI open', () => {
    expect(routeAccess('GET', '/sessions')).toBe('read');
    expect(routeAccess('HEAD', '/')).toBe('read');
    expect(routeAccess('POST', '/v1/traces')).toBe('write');
    expect(routeAccess('DELETE', '/sessions/x')).toBe('admin');
    expect(routeAccess('PUT', '/sessions/x')).toBe('admin');
    expect(routeAccess('GET', '/healthz')).toBe('open');
    expect(routeAccess('GET', '/openapi.json')).toBe('open');
  });

  it('answers every route of the app 401 without a known key, 403 without its scope, and serves it with the scope (the matrix from the route definitions)', async () => {
    // Every part mounted, as mce serve has them: the OTLP receiver too.
    const silent = { info: () => {}, warn: () => {}, error: () => {} };
    const pipeline = receiverPipeline(client, { settings: { ...DEFAULT_RECEIVER_SETTINGS, evaluate: 'none', exportOtlp: { enabled: false } }, env: {}, logger: silent });
    onTestFinished(() => pipeline.close().then(() => undefined));
    // And the telemetry-hub routes of @mce/legacy (a plain Hono app, outside the OpenAPI document), as mce serve mounts them.
    const legacy = ((await import('@mce/legacy/mount')) as unknown as { legacyMount(c: MCEClient, env: NodeJS.ProcessEnv): { app: Hono } }).legacyMount(client, {});
    const app = createApiApp(client, { keys, otlpTraces: pipeline.app, extraRoutes: [legacy.app] });
    // A route added after the app is built (as another module's route is) is guarded the same way, by its method.
    app.get('/added-later', (c) => c.json({ ok: true }));
    app.post('/added-later', (c) => c.json({ ok: true }));
    // The routes as their definitions give them (the OpenAPI document; openapi.test.ts checks it against the routes
    // served), each open one marked so (`security: [{}]`) exactly where the key check lets it through.
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, { security?: object[] }>> };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path: path.replace(/\{([^}]+)\}/g, ':$1'), open: JSON.stringify(op.security) === '[{}]' })),
    );
    for (const route of routes) expect([route.method, route.path, route.open]).toEqual([route.method, route.path, routeAccess(route.method, route.path) === 'open']);
    // Every route served that the document does not describe (the telemetry-hub ones) is in the matrix too.
    const documented = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const served of app.routes) {
      if (served.method !== 'ALL' && !documented.has(`${served.method} ${served.path}`)) {
        documented.add(`${served.method} ${served.path}`);
        routes.push({ method: served.method, path: served.path, open: false });
      }
    }
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /compute_metrics', 'GET /health', 'GET /status', 'GET /metrics']));
    routes.push({ method: 'GET', path: '/added-later', open: false }, { method: 'POST', path: '/added-later', open: false });
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const matrix: string[] = [];
    let n = 0;
    for (const route of routes) {
      const id = `matrix-${n++}`;
      await store(id);
      const path = route.path.replace(/:[^/]+/g, id);
      const bodies: Record<string, string> = {
        'POST /sessions': JSON.stringify({ ...example, id: `${id}-posted` }),
        'POST /v1/traces': '{"resourceSpans": []}',
        'POST /compute_metrics': JSON.stringify({ metrics: ['Duration'], data_fetching_infos: { batch_config: {}, session_ids: [id] } }),
      };
      const body = bodies[`${route.method} ${route.path}`];
      const ask = (key?: string) =>
        app.request(path, { method: route.method, ...(body ? { body } : {}), headers: { ...JSON_TYPE, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
      const access = routeAccess(route.method, route.path);
      const none = await ask();
      const unknown = await ask(newApiKey());
      if (access === 'open') {
        // Open: answered without a key (health, OpenAPI 200; the web view's sign-in asks for its key, 400; sign-out 303).
        const expected = route.path === '/view/sign-in' && route.method === 'POST' ? 400 : route.path === '/view/sign-out' ? 303 : 200;
        expect([route.method, route.path, none.status]).toEqual([route.method, route.path, expected]);
        continue;
      }
      const lacking = await ask(allBut[access]);
      const granted = await ask(plain[access]);
      matrix.push(`${route.method} ${route.path} ${access}: ${none.status} ${unknown.status} ${lacking.status} ${granted.status}`);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mce"');
      expect([none.status, unknown.status, lacking.status]).toEqual([401, 401, 403]);
      // The route's own answer: computations listed, a computation id unknown (404), everything else done.
      expect(granted.status, `${route.method} ${route.path}`).toBeLessThan(route.path === '/computations/:id' ? 500 : 300);
    }
    expect(matrix).toContain(`DELETE /sessions/:id admin: 401 401 403 204`);
    expect(matrix).toContain(`POST /v1/traces write: 401 401 403 200`);
    expect(matrix).toContain(`POST /compute_metrics write: 401 401 403 200`);
    expect(matrix).toContain(`POST /added-later write: 401 401 403 200`);
    expect(matrix).toContain(`GET /added-later read: 401 401 403 200`);
  });

  it('writes one access log line per request with the key name, route, status and duration, never the key; a 403 too', async () => {
    const { lines, logger } = capturingLogger();
    const app = createApiApp(client, { keys, logger });
    await store('logged');
    expect((await app.request('/sessions/logged', { headers: { authorization: `Bearer ${plain.read}` } })).status).toBe(200);
    expect((await app.request('/sessions/logged', { method: 'DELETE', headers: { authorization: `Bearer ${plain.read}` } })).status).toBe(403);
    expect(lines.map(({ level, message, method, path, route, status, key }) => ({ level, message, method, path, route, status, key }))).toEqual([
      { level: 'info', message: 'request', method: 'GET', path: '/sessions/logged', route: '/sessions/:id', status: 200, key: 'only-read' },
      { level: 'info', message: 'request', method: 'DELETE', path: '/sessions/logged', route: '/sessions/:id', status: 403, key: 'only-read' },
    ]);
    expect(lines.every((l) => typeof l.ms === 'number' && typeof l.requestId === 'string')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(plain.read);
  });

  it('logs a 500 with its cause and answers the request id, not the store error text or a secret', async () => {
    const { lines, logger } = capturingLogger();
    const broken = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'broken.db')}`), cache: false });
    await broken.store.close(); // a real failure of the store: every query now throws
    const app = createApiApp(broken, { logger, secrets: ['sk-judge-secret-1'] });
    const res = await app.request('/sessions/mce_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const body = (await res.json()) as { error: string };
    expect(res.status).toBe(500);
    expect(body.error).toBe(`internal server error (request ${res.headers.get('x-request-id')})`);
    const failure = lines.find((l) => l.message === 'request failed')!;
    expect(failure).toMatchObject({ level: 'error', requestId: res.headers.get('x-request-id'), path: '/sessions/***' });
    expect((failure.err as { message: string }).message).toMatch(/not open|closed/i);
    expect(lines.find((l) => l.message === 'request')).toMatchObject({ level: 'error', status: 500, path: '/sessions/***' });
    await broken.close();
  });

  it('serves no key beyond loopback unless told --insecure-no-auth, and then warns on every request', async () => {
    await expect(serveApi(client, { host: '0.0.0.0', port: 0 })).rejects.toThrow(InsecureServeError);
    await expect(serveApi(client, { host: '0.0.0.0', port: 0 })).rejects.toThrow(/refusing to serve on 0\.0\.0\.0, beyond loopback/);
    const { lines, logger } = capturingLogger();
    const open = await serveApi(client, { host: '0.0.0.0', port: 0, insecureNoAuth: true, logger });
    expect((await fetch(`http://127.0.0.1:${open.port}/sessions?limit=1`)).status).toBe(200);
    await open.close();
    expect(lines).toMatchObject([{ level: 'warn', status: 200, insecure: 'no API key required (--insecure-no-auth)' }]);
    const keyed = await serveApi(client, { host: '0.0.0.0', port: 0, keys });
    expect((await fetch(`http://127.0.0.1:${keyed.port}/sessions`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${keyed.port}/healthz`)).status).toBe(200);
    await keyed.close();
    const loopback = await serveApi(client, { port: 0 });
    expect((await fetch(`http://127.0.0.1:${loopback.port}/sessions?limit=1`)).status).toBe(200);
    await loopback.close();
  });

  it('mce serve beyond loopback without a key is a usage error; mce api-key create prints a key once and its config line', async () => {
    const ws = tempWorkspace();
    const refused = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], ws);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'mce: no API key is configured: refusing to serve on 0.0.0.0, beyond loopback (configure api.keys or MCE_API_KEYS, or accept anyone reaching the port with --insecure-no-auth)\n',
    ]);
    const made = await runCli(['api-key', 'create', 'ci', '--scopes', 'read,write', '--json'], ws);
    const { key, hash, scopes } = made.json<{ key: string; hash: string; scopes: string[] }>();
    expect([made.code, hash, scopes]).toEqual([0, hashApiKey(key), ['read', 'write']]);
    const text = await runCli(['api-key', 'create', 'ops', '--scopes', 'admin'], ws);
    const line = /- \{ name: ops, hash: "(sha256:[0-9a-f]{64})", scopes: \[admin\] \}/.exec(text.stdout);
    expect(line).not.toBeNull();
    // The printed line is a valid config: the key printed above it is found by its hash.
    writeFileSync(join(ws.dir, 'mce_config.yaml'), `api:\n  keys:\n    ${line![0]}\n`);
    const printedKey = /^ {2}(mce_\S+)$/m.exec(text.stdout)![1]!;
    expect(new ApiKeys(parseMceConfig(readFileSync(join(ws.dir, 'mce_config.yaml'), 'utf8')).api.keys).find(printedKey)?.name).toBe('ops');
    const bad = await runCli(['api-key', 'create', 'ci', '--scopes', 'read,root'], ws);
    expect([bad.code, bad.stderr]).toEqual([2, 'mce: --scopes: scopes must be read, write, admin joined by + (got "read+root")\n']);
  });
});

describe('CORS', () => {
  it('is off by default, and on for the allow-listed origins only: preflights answered before the key check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-cors-'));
    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    const key = newApiKey();
    const keys = [{ name: 'web', hash: hashApiKey(key), scopes: ['read'] as ApiScope[] }];
    const origin = 'https://app.example.com';
    const ask = (app: ReturnType<typeof createApiApp>, from: string, init: RequestInit = {}) =>
      app.request('/sessions', { ...init, headers: { origin: from, host: 'localhost', ...(init.headers as Record<string, string>) } });
    try {
      const off = createApiApp(client, { keys, allowedHosts: ['localhost'] });
      const refused = await ask(off, origin, { headers: { authorization: `Bearer ${key}` } });
      expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([403, null]);

      const on = createApiApp(client, { keys, allowedHosts: ['localhost'], corsOrigins: [origin] });
      const preflight = await ask(on, origin, { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
      expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-headers')]).toEqual([204, origin, 'Authorization,Content-Type,Prefer']);
      const read = await ask(on, origin, { headers: { authorization: `Bearer ${key}` } });
      expect([read.status, read.headers.get('access-control-allow-origin')]).toEqual([200, origin]);
      const noKey = await ask(on, origin);
      expect(noKey.status).toBe(401); // CORS lets a page ask; the key still decides
      const stranger = await ask(on, 'https://evil.example', { headers: { authorization: `Bearer ${key}` } });
      expect([stranger.status, stranger.headers.get('access-control-allow-origin')]).toEqual([403, null]);
    } finally {
      await client.store.close();
      await client.close();
    }
  });
});

describe('rate limit', () => {
  it('refuses a key past its requests per second with 429 and Retry-After; other keys and health unaffected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-rate-'));
    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    const [a, b] = [newApiKey(), newApiKey()];
    const keys = [{ name: 'a', hash: hashApiKey(a), scopes: ['read'] as ApiScope[] }, { name: 'b', hash: hashApiKey(b), scopes: ['read'] as ApiScope[] }];
    const app = createApiApp(client, { keys, requestsPerSecond: 2 });
    const get = (key: string) => app.request('/sessions', { headers: { authorization: `Bearer ${key}` } });
    try {
      const statuses = [(await get(a)).status, (await get(a)).status];
      const third = await get(a);
      expect([...statuses, third.status, third.headers.get('retry-after')]).toEqual([200, 200, 429, '1']);
      expect(((await third.json()) as { error: string }).error).toMatch(/^rate limit of 2 requests per second exceeded; retry in 1 s$/);
      expect((await get(b)).status).toBe(200);
      expect((await app.request('/healthz')).status).toBe(200);
    } finally {
      await client.store.close();
      await client.close();
    }
  });

  it('refills a bucket at the rate, and forgets full ones', () => {
    let now = 0;
    const limiter = new RateLimiter(2, () => now);
    expect([limiter.take('k'), limiter.take('k')]).toEqual([0, 0]);
    expect(limiter.take('k')).toBe(500); // one more in half a second
    now = 500;
    expect([limiter.take('k'), limiter.take('k')]).toEqual([0, 500]);
  });
});
