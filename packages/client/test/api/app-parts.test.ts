/**
 * The steps `apiApp` is assembled from, each on a small app of its own: the body middleware, the answers no route
 * gives, the options of who may ask, the query parameter checks and the `Prefer` reading.
 */
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '@mce/core';
import { methodsOf, notFound, onError } from '../../src/api/answers.js';
import { guardOptions } from '../../src/api/app.js';
import { accessLog } from '../../src/api/guard.js';
import { hashApiKey } from '../../src/api/auth.js';
import { jsonBodyLimit, jsonContentType } from '../../src/api/middleware.js';
import { booleanParam, integerParam, limitParam, namesParam, refuseInvalid, strictQuery, timeParam } from '../../src/api/query.js';
import { prefersAsync } from '../../src/api/routes/compute.js';

describe('apiApp by step', () => {
  it('body middleware: 413 past the size limit before the route, 415 for a posted body typed other than JSON', async () => {
    const app = new Hono();
    app.use('*', jsonBodyLimit(10), jsonContentType());
    app.post('/x', async (c) => c.json({ got: await c.req.text() }));
    app.onError(onError(undefined, []));
    const post = (body: string, type?: string) => app.request('/x', { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
    expect([(await post('{"a":1}', 'application/json; charset=utf-8')).status, (await post('{"a":12345678}', 'application/json')).status]).toEqual([200, 413]);
    const declared = await app.request('/x', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'content-length': '11' } });
    expect([declared.status, await declared.json()]).toEqual([413, { error: 'request body larger than 10 bytes' }]);
    const form = await post('a=1', 'application/x-www-form-urlencoded');
    expect([form.status, await form.json()]).toEqual([415, { error: 'request body must be application/json (got application/x-www-form-urlencoded)' }]);
  });

  it('body middleware: a chunked body is counted as it is read, refused with 413 once past the limit, read whole under it', async () => {
    const app = new Hono();
    const seen: number[] = [];
    app.use('*', jsonBodyLimit(10));
    app.post('/x', async (c) => c.json({ got: await c.req.text() }));
    // A route that makes its own answer of a failed read still answers the refusal.
    app.post('/own', async (c) => c.req.text().then(() => c.text('read'), () => c.text('no body', 400)));
    app.post('/chunks', async (c) => {
      for await (const chunk of c.req.raw.body!) seen.push(chunk.byteLength);
      return c.text('read');
    });
    app.onError(onError(undefined, []));
    const chunked = (...chunks: string[]) => new ReadableStream({ start: (s) => (chunks.forEach((chunk) => s.enqueue(new TextEncoder().encode(chunk))), s.close()) });
    const post = (path: string, body: ReadableStream) => app.request(path, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit);
    const under = await post('/x', chunked('{"a":', '"é"', '}'));
    expect([under.status, await under.json()]).toEqual([200, { got: '{"a":"é"}' }]);
    const exact = await post('/x', chunked('"12345', '678"'));
    expect([exact.status, await exact.json()]).toEqual([200, { got: '"12345678"' }]);
    for (const path of ['/x', '/own', '/chunks']) {
      const over = await post(path, chunked('"1234', '5678', '9"'));
      expect([path, over.status, await over.json()]).toEqual([path, 413, { error: 'request body larger than 10 bytes' }]);
    }
    // The chunks within the limit reached the route, the one past it did not.
    expect(seen).toEqual([5, 4]);
  });

  it('answers: 405 with Allow for a known path asked with another method, 404 for an unknown one', async () => {
    const app = new Hono();
    app.get('/items/:id', (c) => c.text('ok'));
    app.delete('/items/:id', (c) => c.body(null, 204));
    app.notFound(notFound(app));
    expect(methodsOf(app, '/items/7')).toEqual(['GET', 'DELETE', 'HEAD']);
    const put = await app.request('/items/7', { method: 'PUT' });
    expect([put.status, put.headers.get('allow'), await put.json()]).toEqual([405, 'GET, DELETE, HEAD', { error: 'PUT is not allowed on /items/7 (allowed: GET, DELETE, HEAD)' }]);
    const unknown = await app.request('/nothing');
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'no route GET /nothing' }]);
  });

  it("answers: an error's status by its kind; a 500 logged with its cause, redacted, and answered with the request id only", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = new Hono();
    app.use('*', async (c, next) => {
      c.set('requestId', 'req-1');
      await next();
    });
    app.get('/missing', () => {
      throw new SessionNotFoundError(['s1']);
    });
    app.get('/broken', () => {
      throw new Error('connect failed for postgres://u:hunter2@db', { cause: new Error('hunter2 refused') });
    });
    app.onError(onError({ info: () => {}, warn: () => {}, error: (fields, message) => lines.push({ ...fields, message }) }, ['hunter2']));
    expect((await app.request('/missing')).status).toBe(404);
    const broken = await app.request('/broken');
    expect([broken.status, await broken.json()]).toEqual([500, { error: 'internal server error (request req-1)' }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ requestId: 'req-1', method: 'GET', path: '/broken', message: 'request failed', err: { type: 'Error', cause: '*** refused' } });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('log lines bounded: a 100,000-character path and an error of a million characters, its cause too, log a few KB', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const at = (fields: object, message: string) => void lines.push({ ...fields, message });
    const logger = { info: at, warn: at, error: at };
    const app = new Hono();
    app.use('*', accessLog({ keys: [], logger, secrets: [] }));
    app.get('/broken/*', () => {
      throw new Error('m'.repeat(1_000_000), { cause: new Error('c'.repeat(1_000_000)) });
    });
    app.onError(onError(logger, []));
    const res = await app.request(`/broken/${'p'.repeat(100_000)}`);
    expect(res.status).toBe(500);
    expect(lines.map((l) => l.message)).toEqual(['request failed', 'request']);
    for (const line of lines) expect(JSON.stringify(line).length).toBeLessThan(10_000);
    const err = lines[0]!.err as { message: string; cause: string; stack: string };
    expect([err.message.slice(-25), err.cause.slice(-25), (lines[1]!.path as string).slice(-22)]).toEqual(['… (1000000 characters)'.padStart(25, 'm'), '… (1000000 characters)'.padStart(25, 'c'), '… (100008 characters)'.padStart(22, 'p')]);
  });

  it('who may ask: the shared token is a full-access key named token, and a secret never repeated', () => {
    const guard = guardOptions({ token: 't'.repeat(20), keys: [{ name: 'ci', hash: hashApiKey('c'.repeat(20)), scopes: ['read'] }], secrets: ['sk-1'] });
    expect(guard.keys.map((k) => [k.name, k.scopes])).toEqual([
      ['ci', ['read']],
      ['token', ['read', 'write', 'admin']],
    ]);
    expect(guard.keys[1]!.hash).toBe(hashApiKey('t'.repeat(20)));
    expect(guard.secrets).toEqual(['sk-1', 't'.repeat(20)]);
    expect(guardOptions({})).toEqual({ keys: [], secrets: [] });
  });

  it('query checks: each parameter parsed from its first value (a list from all), a fault named, an unknown one first', async () => {
    const route = createRoute({
      method: 'get',
      path: '/q',
      request: { query: strictQuery({ n: integerParam('n'), limit: limitParam, at: timeParam('at', 'a time'), flag: booleanParam('flag'), names: namesParam('names', 'names') }) },
      responses: { 200: { description: 'ok', content: { 'application/json': { schema: z.object({}).passthrough() } } } },
    });
    const app = new OpenAPIHono({ defaultHook: refuseInvalid });
    app.openapi(route, (c) => c.json(c.req.valid('query'), 200));
    app.onError((error, c) => c.json({ error: error.message }, 400));
    const ask = async (query: string) => {
      const res = await app.request(`/q?${query}`);
      return [res.status, await res.json()];
    };
    expect(await ask('n=3&n=4&at=1970-01-01T00:00:01Z&flag=false&names=a,b&names=c')).toEqual([200, { n: 3, at: 1000, flag: false, names: ['a', 'b', 'c'] }]);
    expect(await ask('n=-1')).toEqual([400, { error: 'query parameter n must be a non-negative integer (got "-1")' }]);
    expect(await ask('at=noon')).toEqual([400, { error: 'query parameter at must be an ISO 8601 time or epoch milliseconds (got "noon")' }]);
    expect(await ask('n=x&other=1')).toEqual([400, { error: 'unknown query parameter "other" (known: n, limit, at, flag, names)' }]);
    expect(await ask('limit=2000')).toEqual([400, { error: 'query parameter limit must be at most 1000 (got 2000); follow the Link header for the next page' }]);
  });

  it('reads Prefer: respond-async among other preferences, a quoted comma separating nothing', () => {
    expect(prefersAsync('respond-async, wait=0')).toBe(true);
    expect(prefersAsync('wait=10; x="a,respond-async", return=minimal')).toBe(false);
    expect(prefersAsync('RESPOND-ASYNC')).toBe(true);
    expect(prefersAsync(undefined)).toBe(false);
  });
});
