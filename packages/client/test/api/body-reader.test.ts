/**
 * Big `POST /sessions` bodies are read in a worker thread (the built one: `npm run build` first): the answer is the
 * one read in place would give, and the event loop stays free meanwhile.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, apiApp, defaultMceConfig, openStore } from '../../src/index.js';
import { BIG_BODY_CHARS, BODY_HEAP_FACTOR, BodyNeedsMoreMemoryError, BodyReader } from '../../src/api/body-reader.js';
import { errorAnswer } from '../../src/api/status.js';
import { readSessionBody } from '../../src/api/session-body.js';
import { chunkedBody } from '../../../../test-support/chunked-body.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string; llmCalls: object[] };
const JSON_TYPE = { 'content-type': 'application/json' };

/** A session of `calls` LLM calls (at least BIG_BODY_CHARS of text for 1,000), each changed by `change`. */
function bigBody(id: string, calls: number, change: (i: number) => object = () => ({})): string {
  const llmCalls = Array.from({ length: calls }, (_, i) => ({ ...example.llmCalls[0], id: `call-${i}`, ...change(i) }));
  return JSON.stringify({ ...example, id, llmCalls }, null, 1);
}

describe('big request bodies', () => {
  let client: MCEClient;
  beforeAll(async () => {
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-body-')), 'kg.db')}`), cache: false });
  });
  afterAll(async () => {
    await client.store.close();
    await client.close();
  });

  it('reads a big body in the worker thread with the answer read in place gives: faults with their lines, warnings, sessions', async () => {
    const reader = new BodyReader();
    expect(reader.threaded, 'the built body worker (npm run build)').toBe(true);
    const invalid = bigBody('bad', 1000, (i) => (i === 700 ? { startTime: 'late' } : i === 900 ? { startTme: 1 } : {}));
    const unknown = bigBody('typo', 1000, (i) => (i % 2 ? { inputTokns: 3 } : {}));
    expect(invalid.length).toBeGreaterThan(BIG_BODY_CHARS);
    const inPlace = [readSessionBody(invalid), readSessionBody(unknown), readSessionBody(`${invalid.slice(0, 600_000)}`)];
    expect(inPlace[0]).toEqual({ error: expect.stringMatching(/^not an mce session document: llmCalls\.700\.startTime \(line \d+, column \d+\): Invalid input/) });
    expect(inPlace[2]).toEqual({ error: expect.stringMatching(/^request body is not JSON \(line \d+, column \d+\)$/) });
    expect(await Promise.all([reader.read(invalid), reader.read(unknown), reader.read(invalid.slice(0, 600_000))])).toEqual(inPlace);
    await reader.close();
  });

  it('names the end of a body of 60 MB of blanks (the scanner that finds the place once ran the worker out of memory)', async () => {
    const reader = new BodyReader();
    const blanks = ' '.repeat(60 * 1024 * 1024);
    expect(await reader.read(blanks)).toEqual({ error: `request body is not JSON (line 1, column ${blanks.length + 1})` });
    expect(await reader.read(bigBody('after', 1000))).toMatchObject({ sessions: [{ id: 'after' }] });
    await reader.close();
  });

  it("reads a streamed body as its text: a big one written to a file as it comes and decoded in the worker, a BOM dropped", async () => {
    const reader = new BodyReader();
    const text = bigBody('bytes', 1000, (i) => (i === 3 ? { name: 'café ☕' } : i === 900 ? { startTme: 1 } : {}));
    const bytes = new TextEncoder().encode(`\ufeff${text}`);
    expect(bytes.byteLength).toBeGreaterThan(BIG_BODY_CHARS);
    // In chunks of 1,000 bytes: some cut a character in two.
    const read = await reader.readStream(chunkedBody(bytes, 1000));
    expect(read).toEqual(readSessionBody(text));
    expect(read).toMatchObject({ sessions: [{ id: 'bytes', llmCalls: expect.arrayContaining([expect.objectContaining({ name: 'café ☕' })]) }], warnings: [{ code: 'unknown-field' }] });
    const small = new TextEncoder().encode('{"id":"s","startTime":0,"endTime":1}');
    expect(await reader.readStream(chunkedBody(small, 7))).toEqual(readSessionBody('{"id":"s","startTime":0,"endTime":1}'));
    expect(await reader.readStream(null)).toEqual(readSessionBody(''));
    await reader.close();
  });

  it('a streamed body fails its read with what its inspection throws, and the next body is read', async () => {
    const reader = new BodyReader();
    const bytes = new TextEncoder().encode(bigBody('inspected', 1000));
    const refused = await reader.readStream(chunkedBody(bytes, 64 * 1024), { inspect: (chunk) => void (chunk.byteLength < 64 * 1024 && assert.fail('the last chunk')) }).then(() => undefined, (error: Error) => error.message);
    expect(refused).toMatch(/the last chunk/);
    expect(await reader.readStream(chunkedBody(bytes, 64 * 1024))).toMatchObject({ sessions: [{ id: 'inspected' }] });
    await reader.close();
  });

  it('answers other requests while a big body is validated (in place, they would wait for it)', async () => {
    const { app, close } = apiApp(client);
    const invalid = bigBody('stalling', 8000, () => ({ startTime: 'late' }));
    const order: string[] = [];
    const posted = Promise.resolve(app.request('/sessions', { method: 'POST', body: invalid, headers: JSON_TYPE })).then((res: Response) => order.push(`post ${res.status}`));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the body is in the worker
    const health = Promise.resolve(app.request('/healthz')).then((res: Response) => order.push(`health ${res.status}`));
    await Promise.all([posted, health]);
    expect(order).toEqual(['health 200', 'post 400']);
    await close();
  });

  it('stores a big valid body read in the worker as it is, with its warnings', async () => {
    const { app, close } = apiApp(client);
    const res = await app.request('/sessions', { method: 'POST', body: bigBody('big-valid', 1200, (i) => (i === 5 ? { startTme: 1 } : {})), headers: JSON_TYPE });
    expect([res.status, await res.json()]).toEqual([201, {
      sessionIds: ['big-valid'],
      warnings: [expect.objectContaining({ code: 'unknown-field', path: 'llmCalls[5].startTme', count: 1, suggestion: 'startTime' })],
    }]);
    const stored = (await (await app.request('/sessions/big-valid')).json()) as { llmCalls: Array<{ id: string }> };
    expect(stored.llmCalls.map((c) => c.id).sort()).toEqual(Array.from({ length: 1200 }, (_, i) => `call-${i}`).sort());
    await close();
  });

  // Not provoked here: a worker thread out of memory inside JSON.parse can abort the whole process, not only itself.
  it('a body over the thread\'s heap / BODY_HEAP_FACTOR is refused before it is read (413); the next one is read', async () => {
    const reader = new BodyReader({ heapMb: 32 });
    const huge = bigBody('huge', 20_000);
    expect(huge.length).toBeGreaterThan((32 * 1024 * 1024) / BODY_HEAP_FACTOR);
    const refused = await reader.read(huge).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(BodyNeedsMoreMemoryError);
    expect(errorAnswer(refused)).toEqual({ status: 413, message: `request body needs more memory to read than the server gives one body (${huge.length} bytes, at most ${(32 * 1024 * 1024) / BODY_HEAP_FACTOR})` });
    expect(await reader.read(bigBody('after', 1000))).toMatchObject({ sessions: [{ id: 'after' }] });
    // Streamed: refused by its declared size before it is read, or as it passes the most without one.
    const declared = await reader.readStream(chunkedBody(new Uint8Array(1), 1), { declaredBytes: huge.length }).then(() => undefined, (error: unknown) => error);
    expect(errorAnswer(declared)).toEqual({ status: 413, message: `request body needs more memory to read than the server gives one body (${huge.length} bytes, at most ${(32 * 1024 * 1024) / BODY_HEAP_FACTOR})` });
    const streamed = await reader.readStream(chunkedBody(new TextEncoder().encode(huge), 64 * 1024)).then(() => undefined, (error: unknown) => error);
    expect(errorAnswer(streamed)).toEqual({ status: 413, message: `request body needs more memory to read than the server gives one body (more than ${(32 * 1024 * 1024) / BODY_HEAP_FACTOR} bytes)` });
    expect(await reader.readStream(chunkedBody(new TextEncoder().encode(bigBody('after-streamed', 1000)), 64 * 1024))).toMatchObject({ sessions: [{ id: 'after-streamed' }] });
    await reader.close();
  });
});
