/**
 * Chunked request bodies (no Content-Length) over HTTP: counted as they stream, refused with 413 the moment they pass
 * the limit, read exactly under it, and the server answering after either.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, defaultMceConfig, openStore, serveApi, type ApiServer } from '../../src/index.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string; userInput: string };
const LIMIT = 1024 * 1024;

/**
 * POSTs `body` in chunks of `size` bytes without a Content-Length; stops sending once answered (a refused body is not
 * sent to its end). The status and the answer's text.
 */
function postChunked(port: number, path: string, body: Uint8Array, size: number): Promise<[number | undefined, string]> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      answered = true;
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve([res.statusCode, text]));
    });
    // The server closes the connection of a refused body it has stopped reading: no failure once answered.
    req.on('error', (error) => !answered && reject(error));
    let at = 0;
    const send = () => {
      while (!answered && at < body.byteLength) {
        const chunk = body.subarray(at, at + size);
        at += size;
        if (!req.write(chunk)) return void req.once('drain', send);
      }
      if (!answered) req.end();
    };
    send();
  });
}

describe('chunked request bodies over HTTP', () => {
  let client: MCEClient;
  let server: ApiServer;
  beforeAll(async () => {
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-chunked-')), 'kg.db')}`), cache: false });
    server = await serveApi(client, { port: 0, maxBodyBytes: LIMIT });
  });
  afterAll(async () => {
    await server.close();
    await client.store.close();
    await client.close();
  });

  const session = (id: string, filler: number) => new TextEncoder().encode(JSON.stringify({ ...example, id, userInput: `café ☕ ${'x'.repeat(filler)}` }));
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return [res.status, await res.json()] as const;
  };

  it('reads a chunked body under the limit exactly, small (in place) or big (through a file and the body reader)', async () => {
    for (const [id, filler] of [['chunked-small', 100], ['chunked-big', 900_000]] as const) {
      const body = session(id, filler);
      expect(body.byteLength).toBeLessThan(LIMIT);
      // 1,001-byte chunks: some cut the multi-byte characters in two.
      expect(await postChunked(server.port, '/sessions', body, 1001)).toEqual([201, JSON.stringify({ sessionIds: [id], warnings: [] })]);
      const [status, stored] = await get(`/sessions/${id}`);
      expect([status, (stored as { userInput: string }).userInput]).toEqual([200, `café ☕ ${'x'.repeat(filler)}`]);
    }
  });

  it('closes the connection of a refused body, saying so: a client keeping connections alive sends its next request on a new one', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (method: string, headers: Record<string, string>, body?: Uint8Array) =>
      new Promise<{ status?: number; connection?: string; socket: unknown }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/sessions', method, headers, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, socket: req.socket }));
        });
        req.on('error', (error) => reject(error));
        if (body) req.write(body);
        req.end();
      });
    const first = await ask('GET', {});
    expect([first.status, first.connection]).toEqual([200, 'keep-alive']);
    // Declared too big (refused before reading) and chunked past the limit (refused as it passes it).
    const declared = await ask('POST', { 'content-type': 'application/json', 'content-length': String(LIMIT + 1) });
    expect([declared.status, declared.connection]).toEqual([413, 'close']);
    const chunked = await ask('POST', { 'content-type': 'application/json' }, new Uint8Array(LIMIT + 10).fill(0x20));
    expect([chunked.status, chunked.connection]).toEqual([413, 'close']);
    const after = await ask('GET', {});
    expect(after.status).toBe(200);
    expect(after.socket).not.toBe(chunked.socket);
    agent.destroy();
  });

  it('refuses a chunked body past the limit with 413 and its message, stores nothing, and answers after', async () => {
    const refused = JSON.stringify({ error: `request body larger than ${LIMIT} bytes` });
    // Far past the limit (the client stops sending once answered), and one byte past it.
    expect(await postChunked(server.port, '/sessions', session('too-big', 20 * LIMIT), 64 * 1024)).toEqual([413, refused]);
    const justOver = session('just-over', 0);
    const padded = new Uint8Array(LIMIT + 1).fill(0x20);
    padded.set(justOver);
    expect(await postChunked(server.port, '/sessions', padded, 64 * 1024)).toEqual([413, refused]);
    // The same on a route that reads its body as text.
    expect(await postChunked(server.port, '/sessions/chunked-small/compute', padded, 64 * 1024)).toEqual([413, refused]);
    expect((await get('/sessions/too-big'))[0]).toBe(404);
    expect((await get('/sessions/just-over'))[0]).toBe(404);
    expect(await get('/healthz')).toEqual([200, expect.anything()]);
    expect(await postChunked(server.port, '/sessions', session('after', 10), 512)).toEqual([201, JSON.stringify({ sessionIds: ['after'], warnings: [] })]);
  });
});
