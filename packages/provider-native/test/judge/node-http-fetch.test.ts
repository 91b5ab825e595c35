import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../src/judge/node-http-fetch.js';

let base = '';
const seen: Array<{ method?: string; headers: http.IncomingHttpHeaders; body: string }> = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({ method: req.method, headers: req.headers, body });
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-id': 'g' });
      res.end(zlib.gzipSync(JSON.stringify({ ok: 'gzip' })));
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 2000);
    } else {
      res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: body }));
    }
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the judge HTTP transport', () => {
  it('sends method, headers and body and returns status, headers and body', async () => {
    const response = await nodeHttpFetch(`${base}/echo`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{"a":1}' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toEqual({ echo: '{"a":1}' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { authorization: 'Bearer k', 'content-length': '7' } });
  });

  it('decodes a compressed reply', async () => {
    const response = await nodeHttpFetch(`${base}/gzip`);
    expect(response.headers.get('x-id')).toBe('g');
    expect(await response.json()).toEqual({ ok: 'gzip' });
  });

  it('aborts on its signal', async () => {
    const started = Date.now();
    await expect(nodeHttpFetch(`${base}/slow`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
