/**
 * The price-fallback warning in the REST API's compute answers: a session whose LLM calls no price table knows (and
 * whose spans recorded no cost) is priced like gpt-4o, and `POST /sessions/{id}/compute` says so in `warnings`, in
 * place, in the compute thread (the built one: `npm run build` first) and in an asynchronous computation's summary.
 * Real SQLite files.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { SessionComputation } from '@mce/core';
import { MCEClient, createApiApp, defaultMceConfig, openStore, serveApi, type ApiServer, type ComputationStatus } from '../../src/index.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string; llmCalls: Record<string, unknown>[] };
/** The example with its two calls made by a model no price table knows. */
const unpriced = { ...example, id: 'unpriced-001', llmCalls: example.llmCalls.map((c) => ({ ...c, requestModel: 'acme-private-7b', responseModel: 'acme-private-7b', provider: 'acme' })) };
const WARNING = {
  code: 'price-fallback',
  message: "2 LLM call(s) priced like gpt-4o: no price for 'acme-private-7b' (2 calls); their Cost is an estimate at gpt-4o's price",
  models: { 'acme-private-7b': 2 },
};
type Validate = ((value: unknown) => boolean) & { errors?: unknown };
let validComputation: Validate;
let validStatus: Validate;

/** The answers are checked against the document the app serves (generated from its route definitions). */
async function compileValidators(app: ReturnType<typeof createApiApp>): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document's shape is checked by openapi.test.ts
  const doc = (await (await app.request('/openapi.json')).json()) as any;
  const computeAnswer = doc.paths['/sessions/{id}/compute'].post.responses[200].content['application/json'].schema as object;
  validComputation = new Ajv2020({ strict: false, validateFormats: false }).compile({ ...computeAnswer, components: doc.components });
  validStatus = new Ajv2020({ strict: false, validateFormats: false }).compile({ ...doc.components.schemas.ComputationStatus, components: doc.components });
}

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

async function computed(fetchIt: Fetch, id: string): Promise<SessionComputation & { warnings?: unknown[] }> {
  const res = await fetchIt(`/sessions/${id}/compute?metrics=Cost`, { method: 'POST' });
  expect(res.status).toBe(200);
  const body = (await res.json()) as SessionComputation & { warnings?: unknown[] };
  expect([validComputation(body), validComputation.errors ?? null]).toEqual([true, null]);
  return body;
}

async function summaryOf(fetchIt: Fetch, id: string): Promise<Record<string, unknown>> {
  const accepted = await fetchIt(`/sessions/${id}/compute?metrics=Cost`, { method: 'POST', headers: { prefer: 'respond-async' } });
  expect(accepted.status).toBe(202);
  const { id: computation } = (await accepted.json()) as ComputationStatus;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const status = (await (await fetchIt(`/computations/${computation}`)).json()) as ComputationStatus;
    if (status.status === 'queued' || status.status === 'running') continue;
    expect([validStatus(status), validStatus.errors ?? null]).toEqual([true, null]);
    expect(status.status).toBe('succeeded');
    return (status as unknown as { summary: Record<string, unknown> }).summary;
  }
  throw new Error('the computation did not finish');
}

function checks(fetchOf: () => Fetch) {
  it('a session priced like gpt-4o: the answer carries the warning, naming the model and its calls', async () => {
    const c = await computed(fetchOf(), unpriced.id);
    expect(c.warnings).toEqual([WARNING]);
    // 2 calls at gpt-4o's price: (310 + 352) · 2.5e-6 + (18 + 15) · 1e-5.
    expect(c.results.find((r) => r.level === 'Session')!.result).toBeCloseTo(662 * 2.5e-6 + 33 * 1e-5, 12);
  });

  it('a session whose models have a price: no warnings', async () => {
    expect(Object.keys(await computed(fetchOf(), example.id))).not.toContain('warnings');
  });

  it('an asynchronous computation keeps the warning in its summary', async () => {
    expect((await summaryOf(fetchOf(), unpriced.id)).warnings).toEqual([WARNING]);
    expect(Object.keys(await summaryOf(fetchOf(), example.id))).not.toContain('warnings');
  });
}

async function opened(dir: string) {
  const url = `sqlite:${join(dir, 'kg.db')}`;
  const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(url), cache: false });
  await client.store.writeSessions([example, unpriced] as never);
  return { client, url };
}

describe('REST compute answers: calls priced like gpt-4o (in place)', () => {
  let client: MCEClient;
  let app: ReturnType<typeof createApiApp>;
  beforeAll(async () => {
    ({ client } = await opened(mkdtempSync(join(tmpdir(), 'mce-price-api-'))));
    app = createApiApp(client);
    await compileValidators(app);
  });
  afterAll(async () => {
    await client.store.close();
    await client.close();
  });
  checks(() => (path, init) => Promise.resolve(app.request(path, init)));
});

describe('REST compute answers: calls priced like gpt-4o (compute thread)', () => {
  let client: MCEClient;
  let server: ApiServer;
  beforeAll(async () => {
    const { client: c, url } = await opened(mkdtempSync(join(tmpdir(), 'mce-price-thread-')));
    client = c;
    const config = { ...defaultMceConfig(), store: { url }, cache: { path: null, read: false, write: false, enabled: false } };
    server = await serveApi(client, { port: 0, computeThread: { config, env: { ...process.env, MODEL_PRICES_REFRESH: 'false' } } });
  });
  afterAll(async () => {
    await server.close();
    await client.store.close();
    await client.close();
  });
  checks(() => (path, init) => fetch(`http://127.0.0.1:${server.port}${path}`, init));
});
