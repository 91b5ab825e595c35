/**
 * A client that sends its headers, or its body, too slowly holds a socket only until the timeouts of serveApi
 * (`headersTimeoutMs`, `requestTimeoutMs`): then the server answers 408 and closes the connection. Node's own defaults
 * are a minute for the headers and five for the request.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, defaultMceConfig, openStore, serveApi, type ApiServer } from '../../src/index.js';

/** Sends `text` and leaves the connection open; resolves with everything the server wrote once it closed it. */
function sendAndWait(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('read timeouts', () => {
  let client: MCEClient;
  let server: ApiServer;
  beforeAll(async () => {
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-timeouts-')), 'kg.db')}`), cache: false });
    server = await serveApi(client, { port: 0, headersTimeoutMs: 300, requestTimeoutMs: 600 });
  });
  afterAll(async () => {
    await server.close();
    await client.store.close();
    await client.close();
  });

  it('answers 408 and closes a connection whose headers do not end in time', async () => {
    const answer = await sendAndWait(server.port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
  });

  it('answers 408 and closes a connection whose body does not come in time', async () => {
    const head = 'POST /sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const answer = await sendAndWait(server.port, `${head}{"id": "slow`);
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    // Nothing of it was stored.
    expect(await client.store.listSessionIds()).toEqual([]);
  });
});
