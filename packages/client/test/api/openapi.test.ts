/**
 * The OpenAPI document is generated from the route definitions: every route the app serves is in it with its method,
 * every documented route is served, every reference resolves, and a definition's checks are what the route does.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, apiApp, defaultMceConfig, hashApiKey, openStore } from '../../src/index.js';
import { receiverPipeline, type ReceiverPipeline } from '../../src/receiver/pipeline.js';
import { DEFAULT_RECEIVER_SETTINGS } from '../../src/receiver/settings.js';

type Doc = { paths: Record<string, Record<string, { operationId?: string; security?: object[] }>>; components: { schemas: Record<string, unknown> } };

describe('OpenAPI document from the route definitions', () => {
  let client: MCEClient;
  let pipeline: ReceiverPipeline;
  let served: ReturnType<typeof apiApp>;
  let doc: Doc;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-openapi-'));
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    const silent = { info: () => {}, warn: () => {}, error: () => {} };
    pipeline = receiverPipeline(client, { settings: { ...DEFAULT_RECEIVER_SETTINGS, evaluate: 'none', exportOtlp: { enabled: false } }, env: {}, logger: silent });
    // Every part mounted: keys (the sign-in form), the OTLP receiver, the web view.
    served = apiApp(client, { keys: [{ name: 'ci', hash: hashApiKey('k'.repeat(32)), scopes: ['read'] }], otlpTraces: pipeline.app });
    doc = (await (await served.app.request('/openapi.json')).json()) as Doc;
  });
  afterAll(async () => {
    await served.close();
    await pipeline.close();
    await client.close();
  });

  it('documents every route the app serves, with its method, and serves every route it documents', () => {
    const routes = new Set(served.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`)),
    );
    expect([...routes].sort()).toEqual([...documented].sort());
    expect(documented).toContain('POST /v1/traces');
    expect(documented).toContain('GET /view/sessions/:id');
    expect(documented).toContain('GET /sessions/:id/metrics');
  });

  it('names each JSON API operation once, and resolves every reference inside the document', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)).filter((id) => id !== undefined);
    expect(ids.length).toBeGreaterThanOrEqual(14);
    expect(new Set(ids).size).toBe(ids.length);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]!);
    const components = refs.filter((r) => r.startsWith('#/components/schemas/')).map((r) => r.slice('#/components/schemas/'.length));
    expect(components.filter((name) => !(name in doc.components.schemas))).toEqual([]);
    // The session schema keeps its own `#/$defs/…` references (its `$id` scopes them); nothing points outside.
    expect(refs.filter((r) => !r.startsWith('#'))).toEqual([]);
  });

  it("validates a request by its route's definition, answering 400 with the same { error } body as every refusal", async () => {
    const ask = async (path: string) => {
      const res = await served.app.request(path, { headers: { authorization: `Bearer ${'k'.repeat(32)}` } });
      return [res.status, await res.json()];
    };
    expect(await ask('/sessions?limit=ten')).toEqual([400, { error: 'query parameter limit must be a non-negative integer (got "ten")' }]);
    expect(await ask('/sessions?limit=1001')).toEqual([400, { error: 'query parameter limit must be at most 1000 (got 1001); follow the Link header for the next page' }]);
    expect(await ask('/computations?statuss=queued&limit=x')).toEqual([400, { error: 'unknown query parameter "statuss" (known: status, limit, offset)' }]);
    expect(await ask('/sessions/x/metrics?recursive=yes')).toEqual([400, { error: 'query parameter recursive must be true or false (got "yes")' }]);
    expect(await ask('/sessions/x/metrics?metrics=,')).toEqual([400, { error: 'query parameter metrics: give at least one metric name' }]);
  });

  it('describes the large bodies read off the event loop without validating them on the way in', () => {
    const post = doc.paths['/sessions']!.post as { requestBody: { content: Record<string, { schema: object }> } };
    expect(Object.keys(post.requestBody.content)).toEqual(['application/json']);
    expect(JSON.stringify(post.requestBody.content['application/json']!.schema)).toContain('#/components/schemas/Session');
  });
});
