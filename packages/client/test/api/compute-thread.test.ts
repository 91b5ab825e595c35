/**
 * Computations in the server's compute thread (the built one: `npm run build` first): the same answers and stored
 * results as in place, while other requests are answered meanwhile. Real SQLite file shared by both clients.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionComputation } from '@mce/core';
import { MCEClient, defaultMceConfig, openStore, serveApi, type ApiServer, type ComputationStatus } from '../../src/index.js';
import { ComputeThread } from '../../src/api/compute-thread.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string; llmCalls: object[] };
const JSON_TYPE = { 'content-type': 'application/json' };
const ranked = (c: SessionComputation) => c.results.map((r) => `${r.name}@${r.level}:${r.measures}=${r.result}`).sort();

describe('the compute thread', () => {
  let client: MCEClient;
  let server: ApiServer;
  let base: string;
  beforeAll(async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-thread-')), 'kg.db')}`;
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url), cache: false });
    const config = { ...defaultMceConfig(), store: { url }, cache: { path: null, read: false, write: false, enabled: false } };
    expect(new ComputeThread({ config, env: {} }).available, 'the built compute thread (npm run build)').toBe(true);
    server = await serveApi(client, { port: 0, computeThread: { config, env: { ...process.env } } });
    base = `http://127.0.0.1:${server.port}`;
    const posted = await fetch(`${base}/sessions`, { method: 'POST', body: JSON.stringify(example), headers: JSON_TYPE });
    expect(posted.status).toBe(201);
  });
  afterAll(async () => {
    await server.close();
    await client.store.close();
    await client.close();
  });

  it('answers and stores what the computation in place gives, and its errors', async () => {
    const res = await fetch(`${base}/sessions/${example.id}/compute?metrics=Duration,LLMCallCount`, { method: 'POST' });
    expect(res.headers.get('content-type')).toBe('application/json');
    const threaded = (await res.json()) as SessionComputation;
    const [inPlace] = await client.computeAndStore(example.id, { metrics: ['Duration', 'LLMCallCount'] });
    expect(ranked(threaded)).toEqual(ranked(inPlace!));
    const stored = await client.getMetrics(example.id, { metricIds: ['LLMCallCount'], recursive: true });
    expect(stored.map((r) => r.id)).toEqual(expect.arrayContaining(threaded.results.filter((r) => r.name === 'LLMCallCount').map((r) => r.id)));
    const unknown = await fetch(`${base}/sessions/${example.id}/compute?metrics=Durration`, { method: 'POST' });
    expect([unknown.status, ((await unknown.json()) as { error: string }).error]).toEqual([400, expect.stringContaining('Durration')]);

    const accepted = await fetch(`${base}/sessions/${example.id}/compute?metrics=Duration`, { method: 'POST', headers: { prefer: 'respond-async' } });
    const { id } = (await accepted.json()) as ComputationStatus;
    let status: ComputationStatus;
    do status = (await (await fetch(`${base}/computations/${id}`)).json()) as ComputationStatus;
    while (status.status === 'queued' || status.status === 'running');
    expect(status).toMatchObject({ status: 'succeeded', summary: { results: threaded.results.filter((r) => r.name === 'Duration').length, failed: 0 } });
  });

  it('leaves the event loop free while it computes a big session (in place, the loop is busy throughout)', async () => {
    const llmCalls = Array.from({ length: 5_000 }, (_, i) => ({ ...example.llmCalls[0], id: `big-${i}` }));
    const posted = await fetch(`${base}/sessions`, { method: 'POST', body: JSON.stringify({ ...example, id: 'big', llmCalls, toolCalls: [] }), headers: JSON_TYPE });
    expect(posted.status).toBe(201);
    const order: string[] = [];
    const before = performance.eventLoopUtilization();
    const computed = fetch(`${base}/sessions/big/compute?metrics=Duration,LLMCallCount`, { method: 'POST' }).then(async (r) => {
      await r.arrayBuffer();
      order.push(`compute ${r.status}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the thread is reading the session
    await fetch(`${base}/healthz`).then((r) => order.push(`health ${r.status}`));
    await computed;
    // The share of the computation's time this process's event loop was busy: in place nearly all of it (reading,
    // computing, storing 5,000 calls' results), with the thread little (a ratio, not a time).
    const busy = performance.eventLoopUtilization(before).utilization;
    expect(order).toEqual(['health 200', 'compute 200']);
    expect(busy).toBeLessThan(0.5);
  }, 120_000);
});
