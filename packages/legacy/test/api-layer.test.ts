/**
 * A round trip through a telemetry-hub api-layer (a scripted HTTP server on loopback): the batch's sessions are
 * listed and their spans read from it, the metrics computed by mce, and the results written back to it, one POST
 * each, as the old engine wrote them. The mce store is left empty: the sessions live in the api-layer.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSessions } from '@mce/ingest';
import type { MCEClient } from '@mce/client';
import { legacyMount } from '../src/index.js';
import { startScriptedApiLayer, type ApiLayerRow, type ScriptedApiLayer } from './scripted-api-layer.js';
import { FIXTURE_FILES, closeClient, fixture, openClientWith, postJson } from './support.js';
import { serveApi } from '@mce/client';

/** Each fixture's rows under the session id mce reads from them (`session.id` / `execution.id`). */
async function apiLayerSessions(): Promise<Record<string, ApiLayerRow[]>> {
  const out: Record<string, ApiLayerRow[]> = {};
  for (const file of FIXTURE_FILES) {
    const raw = JSON.parse(readFileSync(fixture(file), 'utf8')) as ApiLayerRow[] | Record<string, ApiLayerRow[]>;
    const rows = Array.isArray(raw) ? raw : Object.values(raw).flat();
    const [session] = (await readSessions(fixture(file))).sessions;
    out[session!.id] = rows;
  }
  return out;
}

describe('the api-layer as session source and result sink', () => {
  let client: MCEClient;
  let layer: ScriptedApiLayer;
  let url: string;
  let close: () => Promise<void>;
  let sessionIds: string[];
  beforeAll(async () => {
    const sessions = await apiLayerSessions();
    sessionIds = Object.keys(sessions);
    layer = await startScriptedApiLayer(sessions);
    ({ client } = await openClientWith([]));
    // SESSIONS_TRACES_MAX=3: the four sessions' spans are asked in two requests.
    const mount = legacyMount(client, { API_BASE_URL: layer.url, SESSIONS_TRACES_MAX: '3', WORKERS: '4' });
    expect(mount.notices).toEqual([
      `telemetry-hub routes (POST /compute_metrics, GET /metrics, /status, /health) read sessions from the api-layer at ${layer.url}`,
      'WORKERS is ignored: one process serves; computations run in a worker thread of their own',
    ]);
    const server = await serveApi(client, { port: 0, extraRoutes: [mount.app] });
    url = `http://127.0.0.1:${server.port}`;
    close = () => server.close();
  });
  afterAll(async () => {
    await close();
    await layer.close();
    await closeClient(client);
  });

  it('lists a batch, reads its spans, computes, and writes every result back', async () => {
    const { status, body } = await postJson(`${url}/compute_metrics`, {
      metrics: ['Cycles', 'AgentToAgentInteractions', 'ToolErrorRate', 'GraphDeterminismScore'],
      data_fetching_infos: { batch_config: { time_range: { start: '2025-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' }, app_name: 'ignored-by-the-api-layer' } },
      metric_options: { write_to_db: true },
    });
    expect(status).toBe(200);
    // The listing: one page with the window (and the app name as `name`), a second that brings nothing new.
    const listings = layer.calls.filter((c) => c.path === '/traces/sessions');
    expect(listings.map((c) => [c.query.start_time, c.query.end_time, c.query.name, c.query.page])).toEqual([
      ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'ignored-by-the-api-layer', '0'],
      ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'ignored-by-the-api-layer', '1'],
    ]);
    const spanRequests = layer.calls.filter((c) => c.path === '/traces/sessions/spans').map((c) => c.query.session_ids!.split(','));
    expect(spanRequests.map((ids) => ids.length)).toEqual([3, 1]);
    expect(spanRequests.flat().sort()).toEqual([...sessionIds].sort());
    // Every session computed: three session metrics each, and the population metric over the four.
    expect(body.results.session_metrics).toHaveLength(12);
    expect(new Set(body.results.session_metrics.map((r: { session_id: string[] }) => r.session_id[0]))).toEqual(new Set(sessionIds));
    expect(body.results.population_metrics).toHaveLength(1);
    expect(body.results.failed_metrics).toEqual([]);
    // Written back: one POST /metrics/session per session result, in the old payload.
    const posted = layer.posted.get('/metrics/session') as Array<{ app_id: string; app_name: string; session_id: string; span_id: string; trace_id: string; metrics: { metric_name: string; value: unknown } }>;
    expect(posted).toHaveLength(12);
    const cycles = posted.find((p) => p.metrics.metric_name === 'Cycles' && p.session_id.startsWith('POIROT'));
    expect(cycles).toMatchObject({ app_name: expect.any(String), trace_id: 'default_trace_id', metrics: { metric_name: 'Cycles', aggregation_level: 'session' } });
    expect(typeof cycles?.metrics.value).toBe('number');
    expect(layer.posted.get('/metrics/span')).toBeUndefined();
    // Nothing went into mce's own store.
    expect(await client.store.listSessionIds()).toEqual([]);
  });

  it('PAGINATION_* cap a batch and size its pages; DB_ADAPTER_TYPE_API_HEADERS go with every request', async () => {
    const mount = legacyMount(client, { API_BASE_URL: layer.url, PAGINATION_LIMIT: '2', PAGINATION_DEFAULT_MAX_SESSIONS: '3', DB_ADAPTER_TYPE_API_HEADERS: '{"x-api-key": "k-123"}' });
    const before = layer.calls.length;
    const response = await mount.app.request('/compute_metrics', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metrics: ['Cycles'], data_fetching_infos: { batch_config: { time_range: { start: '2025-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } } } }),
    });
    const body = (await response.json()) as { results: { session_metrics: Array<{ session_id: string[] }> } };
    const calls = layer.calls.slice(before);
    // A page of 2 asked; the api-layer ignores the size and sends all four, enough: the batch keeps the newest three.
    expect(calls.filter((c) => c.path === '/traces/sessions').map((c) => c.query.limit)).toEqual(['2']);
    expect(body.results.session_metrics).toHaveLength(3);
    expect(calls.every((c) => c.headers['x-api-key'] === 'k-123')).toBe(true);
  });

  it('a result the api-layer refuses is reported as not written back', async () => {
    layer.failPostsWith(503);
    try {
      const { body } = await postJson(`${url}/compute_metrics`, { metrics: ['ToolErrorRate'], data_fetching_infos: { session_ids: [sessionIds[0]!] }, metric_options: { write_to_db: true } });
      expect(body.results.session_metrics).toHaveLength(1);
      expect(body.results.failed_metrics).toHaveLength(1);
      expect(body.results.failed_metrics[0].error_message).toMatch(/^computed, but not written back: api-layer POST http:\/\/127\.0\.0\.1:\d+\/metrics\/session: HTTP 503/);
    } finally {
      layer.failPostsWith(undefined);
    }
  });

  it('a session the api-layer does not know is reported', async () => {
    const { body } = await postJson(`${url}/compute_metrics`, { metrics: ['ToolErrorRate'], data_fetching_infos: { session_ids: ['nope'] } });
    expect(body.results.failed_metrics).toEqual([expect.objectContaining({ metric_name: 'ALL', session_id: ['nope'], error_message: 'session nope was not found in the api-layer' })]);
  });

  it('an api-layer that does not answer is a 502 naming its URL', async () => {
    const dead = legacyMount(client, { API_BASE_URL: 'http://127.0.0.1:9' });
    const response = await dead.app.request('/compute_metrics', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data_fetching_infos: { batch_config: { num_sessions: 1 } } }) });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/^api-layer GET http:\/\/127\.0\.0\.1:9\/traces\/sessions\?start_time=/);
  });
});
