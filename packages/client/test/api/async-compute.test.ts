/**
 * `POST /sessions/{id}/compute` with `Prefer: respond-async`: refused before the 202 as the synchronous form would be,
 * then run in the background (a few at a time, the rest queued in order) and read at `GET /computations/{id}`. The
 * judged metric's timing is set by the scripted OpenAI-compatible judge on loopback; the store is a real SQLite file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionComputation } from '@mce/core';
import { MCEClient, apiApp, defaultMceConfig, openStore, serveApi, type ApiOptions, type ComputationStatus } from '../../src/index.js';
import { ComputationStatusSchema } from '../../src/api/schemas.js';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';
import { pointJudgeAt, resetJudgeEnv } from '../../../../test-support/judge-env.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as { id: string };

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JSON_TYPE = { 'content-type': 'application/json' };
const ASYNC = { ...JSON_TYPE, prefer: 'respond-async, wait=0' };

// Every status answered is checked against the schema the OpenAPI document is generated from (times: by ISO below).
const validStatus = Object.assign((body: unknown) => (validStatus.errors = ComputationStatusSchema.safeParse(body).error?.issues ?? null) === null, { errors: null as unknown });

type App = ReturnType<typeof apiApp>['app'];

async function status(app: App, id: string): Promise<ComputationStatus> {
  const res = await app.request(`/computations/${id}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as ComputationStatus;
  expect([validStatus(body), validStatus.errors ?? null]).toEqual([true, null]);
  return body;
}

/** Polls until the computation has finished (succeeded or failed). */
async function finished(app: App, id: string): Promise<ComputationStatus> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const s = await status(app, id);
    if (s.status === 'succeeded' || s.status === 'failed') return s;
  }
  throw new Error(`computation ${id} did not finish`);
}

/** A computation compared without its result ids and timestamps (each run has its own). */
const comparable = (c: SessionComputation) => ({
  sessionId: c.sessionId,
  results: c.results.map((r) => ({ name: r.name, level: r.level, measures: r.measures, result: r.result })).sort((a, b) => `${a.name}${a.level}${a.measures}`.localeCompare(`${b.name}${b.level}${b.measures}`)),
  failed: c.failed,
  skipped: c.skipped,
});

describe('asynchronous compute', () => {
  let judge: ScriptedLLMServer;
  let client: MCEClient;
  let dir: string;
  let sessions = 0;
  const slow = (latencyMs: number) => judge.setScript([], { text: 'On topic.\nScore: 4', latencyMs });

  beforeAll(async () => {
    judge = await startScriptedLLMServer();
    pointJudgeAt(judge.url);
    dir = mkdtempSync(join(tmpdir(), 'mce-async-'));
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
  });
  afterAll(async () => {
    await client.store.close();
    await client.close();
    resetJudgeEnv();
    await judge.close();
  });

  /** The app with a session of its own stored (each test its own, so stored results do not mix). */
  async function withSession(options: ApiOptions = {}, over: MCEClient = client) {
    const built = apiApp(over, options);
    const id = `async-${++sessions}`;
    const posted = await built.app.request('/sessions', { method: 'POST', body: JSON.stringify({ ...example, id }), headers: JSON_TYPE });
    expect(posted.status).toBe(201);
    const submit = async (body: unknown) => {
      const res = await built.app.request(`/sessions/${id}/compute`, { method: 'POST', body: JSON.stringify(body), headers: ASYNC });
      expect([res.status, res.headers.get('preference-applied')]).toEqual([202, 'respond-async']);
      const accepted = (await res.json()) as ComputationStatus;
      expect(res.headers.get('location')).toBe(`/computations/${accepted.id}`);
      expect([validStatus(accepted), validStatus.errors ?? null]).toEqual([true, null]);
      return accepted;
    };
    return { ...built, id, submit };
  }

  it('answers 202 with Location and Preference-Applied, then a summary of what it stored and where, never the results', async () => {
    slow(0);
    const { app, id, submit } = await withSession();
    const body = { metrics: ['AnswerRelevancy', 'Duration'], recursive: false };
    const accepted = await submit(body);
    expect(accepted).toEqual({ id: expect.stringMatching(UUID), sessionId: id, status: 'running', submittedAt: expect.stringMatching(ISO), startedAt: expect.stringMatching(ISO) });
    const done = await finished(app, accepted.id);
    if (done.status !== 'succeeded') throw new Error(`computation ${done.status}`);
    const resultsUrl = `/results?session=${id}&from=${encodeURIComponent(done.startedAt)}&to=${encodeURIComponent(done.finishedAt)}`;
    expect(done).toEqual({ ...accepted, status: 'succeeded', finishedAt: expect.stringMatching(ISO), summary: { results: 2, failed: 0, skipped: 0, failures: [], resultsUrl } });
    expect(judge.requests).toHaveLength(1);

    // The summary's URL answers this run's stored results (and not those of the synchronous run after it).
    const sync = await app.request(`/sessions/${id}/compute`, { method: 'POST', body: JSON.stringify(body), headers: JSON_TYPE });
    expect(sync.status).toBe(200);
    const rows = (await (await app.request(resultsUrl)).json()) as Array<{ result: { name: string; result: number } }>;
    expect(rows.map((r) => [r.result.name, r.result.result]).sort()).toEqual([['AnswerRelevancy', 0.75], ['Duration', 4200]]); // Score 4 of 1–5
    const synchronous = (await sync.json()) as SessionComputation;
    expect(comparable(synchronous).results.map((r) => [r.name, r.result])).toEqual([['AnswerRelevancy', 0.75], ['Duration', 4200]]);
    const stored = (await (await app.request(`/sessions/${id}/metrics?metrics=AnswerRelevancy,Duration`)).json()) as SessionComputation;
    expect(stored.results).toHaveLength(4);
  });

  it('keeps the first failures of a computation in its summary, counting them all', async () => {
    judge.setScript([], { text: 'no score in this answer' }); // a failure without retries
    const { app, submit } = await withSession();
    const done = await finished(app, (await submit({ metrics: ['AnswerRelevancy', 'Duration'], recursive: false })).id);
    if (done.status !== 'succeeded') throw new Error(`computation ${done.status}`);
    expect(done.summary).toMatchObject({ results: 1, failed: 1, skipped: 0, failures: [{ name: 'AnswerRelevancy', level: 'Session', error: expect.any(String) }] });
  });

  it('a session deleted while computed: the computation fails (the synchronous form: 404) and stores nothing of it', async () => {
    slow(200);
    const { app, id, submit } = await withSession();
    const body = { metrics: ['AnswerRelevancy', 'Duration'], recursive: false };
    const accepted = await submit(body);
    const sync = app.request(`/sessions/${id}/compute`, { method: 'POST', body: JSON.stringify(body), headers: JSON_TYPE });
    await new Promise((resolve) => setTimeout(resolve, 50)); // both wait on the judge
    expect((await app.request(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    const answered = await sync;
    expect([answered.status, await answered.json()]).toEqual([404, { error: `Session not found: ${id}` }]);
    expect(await finished(app, accepted.id)).toEqual({ ...accepted, status: 'failed', finishedAt: expect.stringMatching(ISO), error: `Session not found: ${id}` });
    expect(await client.store.queryMetricResults({ sessionIds: [id] })).toEqual([]);
  });

  it('runs at most maxConcurrentComputations at once: the next waits queued, and they finish in order', async () => {
    slow(300);
    const { app, submit } = await withSession({ maxConcurrentComputations: 1 });
    // Session level only: one judge call each, so the judge's peak concurrency is the computations'.
    const first = await submit({ metrics: ['AnswerRelevancy'], recursive: false });
    const second = await submit({ metrics: ['AnswerRelevancy'], recursive: false });
    expect([first.status, second]).toEqual(['running', { id: second.id, sessionId: first.sessionId, status: 'queued', submittedAt: expect.stringMatching(ISO) }]);
    expect([(await status(app, first.id)).status, (await status(app, second.id)).status]).toEqual(['running', 'queued']);
    const [a, b] = [await finished(app, first.id), await finished(app, second.id)];
    expect([a.status, b.status]).toEqual(['succeeded', 'succeeded']);
    if (a.status !== 'succeeded' || b.status !== 'succeeded') return;
    expect(a.finishedAt <= b.startedAt).toBe(true);
    expect([judge.requests.length, judge.maxConcurrent]).toEqual([2, 1]);
  });

  it('lists the computations it holds, newest submitted first, by status; 400 for an unknown status or parameter', async () => {
    slow(300);
    const { app, submit } = await withSession({ maxConcurrentComputations: 1 });
    const first = await submit({ metrics: ['AnswerRelevancy'], recursive: false });
    const second = await submit({ metrics: ['AnswerRelevancy'], recursive: false });
    const listed = async (query: string) => {
      const res = await app.request(`/computations${query}`);
      const body = (await res.json()) as ComputationStatus[] | { error: string };
      if (Array.isArray(body)) for (const s of body) expect([validStatus(s), validStatus.errors ?? null]).toEqual([true, null]);
      return [res.status, Array.isArray(body) ? body.map((s) => [s.id, s.status]) : body.error];
    };
    expect(await listed('')).toEqual([200, [[second.id, 'queued'], [first.id, 'running']]]);
    expect(await listed('?status=running')).toEqual([200, [[first.id, 'running']]]);
    expect(await listed('?status=queued,running')).toEqual([200, [[second.id, 'queued'], [first.id, 'running']]]);
    expect(await listed('?status=failed&status=queued')).toEqual([200, [[second.id, 'queued']]]);
    expect(await listed('?status=done')).toEqual([400, 'query parameter status must name statuses: queued, running, succeeded, failed (got "done")']);
    expect(await listed('?status=')).toEqual([400, 'query parameter status must name statuses: queued, running, succeeded, failed (got "")']);
    expect(await listed('?limt=1')).toEqual([400, 'unknown query parameter "limt" (known: status, limit, offset)']);
    // Paged: a full page links the next one.
    const page = await app.request('/computations?limit=1');
    expect([((await page.json()) as ComputationStatus[]).map((s) => s.id), page.headers.get('link')]).toEqual([[second.id], '</computations?limit=1&offset=1>; rel="next"']);
    expect(await listed('?limit=1&offset=1')).toEqual([200, [[first.id, 'running']]]);
    expect(await listed('?limit=5000')).toEqual([400, 'query parameter limit must be at most 1000 (got 5000); follow the Link header for the next page']);
    await finished(app, second.id);
    expect(await listed('?status=succeeded')).toEqual([200, [[second.id, 'succeeded'], [first.id, 'succeeded']]]);
  });

  it('refuses a bad body, an unknown session or metric before the 202, and creates no computation', async () => {
    slow(0);
    const { app, computations, id } = await withSession();
    // Each answered as the synchronous form answers it, without a Location or a Preference-Applied.
    const refusal = async (path: string, body?: string) => {
      const answer = async (headers: Record<string, string>) => {
        const res = await app.request(path, { method: 'POST', ...(body === undefined ? {} : { body }), headers });
        return [res.status, res.headers.get('location'), res.headers.get('preference-applied'), await res.json()];
      };
      const refused = await answer(ASYNC);
      expect(refused).toEqual(await answer(JSON_TYPE));
      return refused;
    };
    expect(await refusal(`/sessions/${id}/compute`, '{\n  "metrics": [],\n  "recursive": "yes"\n}')).toEqual([400, null, null, {
      error: 'request body: metrics (line 2, column 14): Too small: expected array to have >=1 items; recursive (line 3, column 16): Invalid input: expected boolean, received string',
    }]);
    expect(await refusal(`/sessions/${id}/compute`, '{"metrics": ["Duration",]}')).toEqual([400, null, null, { error: 'request body is not JSON (line 1, column 25)' }]);
    expect(await refusal('/sessions/nope/compute?metrics=Duration')).toEqual([404, null, null, { error: 'Session not found: nope' }]);
    expect(await refusal(`/sessions/${id}/compute?metrics=Duration,Durration`)).toEqual([400, null, null, {
      error: 'metrics: Unknown metric "Durration" selected at Session (did you mean "Duration"?)',
    }]);
    expect(await refusal(`/sessions/${id}/compute`, '{"metrics": {"Session": ["AnswerRelevancy"], "LLMCall": ["Duraton"]}}')).toEqual([400, null, null, {
      error: 'metrics: Unknown metric "Duraton" selected at LLMCall (did you mean "Duration"?)',
    }]);
    expect([computations.size, judge.requests.length]).toEqual([0, 0]);
  });

  it('a computation whose store write fails ends "failed" with its message, and stores nothing', async () => {
    const store = await openStore(`sqlite:${join(dir, 'kg.db')}`);
    // Its busy timeout cut to 50 ms so the test need not wait the store's 10 s (as the 503 test of api.test.ts does).
    (store as unknown as { db: Database.Database }).db.pragma('busy_timeout = 50');
    const own = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    const holder = new Database(join(dir, 'kg.db'));
    try {
      const { app, id, submit } = await withSession({}, own);
      holder.exec('BEGIN IMMEDIATE'); // another writer holds the lock: reading works, writing the results does not
      const accepted = await submit({ metrics: ['Duration'] });
      expect(await finished(app, accepted.id)).toEqual({ ...accepted, status: 'failed', finishedAt: expect.stringMatching(ISO), error: 'database is locked' });
      holder.exec('ROLLBACK');
      expect(((await (await app.request(`/sessions/${id}/metrics?recursive=true`)).json()) as SessionComputation).results).toEqual([]);
    } finally {
      holder.close();
      await store.close();
      await own.close();
    }
  });

  it('answers 404 for an unknown computation, and keeps only the last maxFinishedComputations finished ones', async () => {
    slow(200);
    const { app, submit } = await withSession({ maxConcurrentComputations: 1, maxFinishedComputations: 1 });
    const unknown = await app.request('/computations/nope');
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'Computation not found: nope' }]);
    const [a, b, c] = [await submit({ metrics: ['AnswerRelevancy'], recursive: false }), await submit({ metrics: ['Duration'] }), await submit({ metrics: ['Duration'] })];
    // Three kept past the limit of one: queued and running ones are never dropped.
    expect([(await status(app, a.id)).status, (await status(app, b.id)).status, (await status(app, c.id)).status]).toEqual(['running', 'queued', 'queued']);
    expect((await finished(app, c.id)).status).toBe('succeeded');
    expect([(await app.request(`/computations/${a.id}`)).status, (await app.request(`/computations/${b.id}`)).status]).toEqual([404, 404]);
  });

  it('refuses a computation past the queue (429 with Retry-After) or past its key\'s share, and takes one again once a place is free', async () => {
    slow(300);
    const keyed = await withSession({ maxConcurrentComputations: 1, maxQueuedComputations: 1 });
    await keyed.submit({ metrics: ['AnswerRelevancy'], recursive: false }); // running
    const queued = await keyed.submit({ metrics: ['AnswerRelevancy'], recursive: false });
    const full = await keyed.app.request(`/sessions/${keyed.id}/compute?metrics=Duration`, { method: 'POST', headers: ASYNC });
    expect([full.status, full.headers.get('retry-after'), await full.json()]).toEqual([429, '5', { error: '1 computations are waiting already (the most the server queues); retry later' }]);
    await finished(keyed.app, queued.id);
    await keyed.submit({ metrics: ['Duration'] });

    const perKey = await withSession({ maxComputationsPerKey: 1 });
    await perKey.submit({ metrics: ['AnswerRelevancy'], recursive: false });
    const second = await perKey.app.request(`/sessions/${perKey.id}/compute?metrics=Duration`, { method: 'POST', headers: ASYNC });
    expect([second.status, second.headers.get('retry-after'), await second.json()]).toEqual([429, '5', { error: '1 computations of this API key are queued or running already (the most one key may have); retry later' }]);
  });

  it('close refuses new computations (503) and resolves once the queued and running ones have stored their results', async () => {
    slow(200);
    const { app, computations, id, submit } = await withSession({ maxConcurrentComputations: 1 });
    await submit({ metrics: ['AnswerRelevancy'], recursive: false });
    await submit({ metrics: ['AnswerRelevancy'], recursive: false });
    const closed = computations.close();
    const late = await app.request(`/sessions/${id}/compute?metrics=Duration`, { method: 'POST', headers: ASYNC });
    expect([late.status, late.headers.get('retry-after'), await late.json()]).toEqual([503, '5', { error: 'the server is shutting down: it takes no new computations' }]);
    await closed;
    expect((await client.getMetrics(id, { metricIds: ['AnswerRelevancy'] })).length).toBe(2);

    // The same through serveApi: its close waits for a computation running over HTTP.
    const server = await serveApi(client, { port: 0 });
    const res = await fetch(`http://127.0.0.1:${server.port}/sessions/${id}/compute?metrics=AnswerRelevancy`, { method: 'POST', headers: { prefer: 'respond-async' } });
    expect([res.status, ((await res.json()) as ComputationStatus).status, server.pendingComputations]).toEqual([202, 'running', 1]);
    await server.close();
    expect([(await client.getMetrics(id, { metricIds: ['AnswerRelevancy'] })).length, server.pendingComputations]).toEqual([3, 0]);
  });

  /** `mce serve` in a process of its own over a new workspace, the judge the scripted one; its stderr kept. */
  async function startServe(argv: string[] = []) {
    const ws = mkdtempSync(join(tmpdir(), 'mce-serve-'));
    const env = {
      PATH: process.env.PATH,
      MCE_STORE_URL: `sqlite:${join(ws, 'mce.db')}`,
      MCE_METRIC_CACHE: join(ws, 'cache.db'),
      MCE_CONFIG_HOME: join(ws, 'user-config'),
      MODEL_PRICES_REFRESH: 'false',
      OPENAI_API_KEY: 'test-key',
      LLM_MODEL_NAME: 'gpt-4o-mini',
      LLM_BASE_MODEL_URL_MCE: judge.url,
    };
    const bin = fileURLToPath(new URL('../../bin/mce.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...argv], { env, cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const port = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
        if (listening) resolve(listening[1]!);
      });
      void exited.then(() => reject(new Error(`mce serve exited: ${stderr}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/sessions`, { method: 'POST', body: JSON.stringify(example), headers: JSON_TYPE })).status).toBe(201);
    const submit = async () => {
      const res = await fetch(`${base}/sessions/${example.id}/compute`, { method: 'POST', body: '{"metrics": ["AnswerRelevancy"], "recursive": false}', headers: ASYNC });
      expect(res.status).toBe(202);
      return ((await res.json()) as ComputationStatus).id;
    };
    return { ws, child, exited, submit, stderr: () => stderr };
  }

  it('mce serve, interrupted, says what it waits for and exits once the running computation has stored its results', async () => {
    slow(400);
    const { ws, child, exited, submit, stderr: output } = await startServe();
    await submit();
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    // Besides the access log's JSON lines (one per request), and the telemetry-hub routes' notice when @mce/legacy
    // is installed (it is in this workspace).
    const said = output().split('\n').slice(1).filter((line) => !line.startsWith('{') && !line.startsWith('mce: telemetry-hub routes'));
    expect(said).toEqual(['mce API stopping: waiting for 1 computation to finish (signal again to stop at once)', '']);
    const store = await openStore(`sqlite:${join(ws, 'mce.db')}`);
    const reader = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    try {
      expect((await reader.getMetrics(example.id)).map((r) => [r.name, r.result])).toEqual([['AnswerRelevancy', 0.75]]);
    } finally {
      await store.close();
      await reader.close();
    }
  });
  it('mce serve, interrupted twice, stops at once naming each computation it leaves unfinished', async () => {
    slow(60_000); // the first computation waits for the judge throughout
    const { child, exited, submit, stderr } = await startServe(['--max-computations', '1']);
    const [first, second] = [await submit(), await submit()];
    child.kill('SIGINT');
    await new Promise<void>((resolve) => {
      const check = () => (stderr().includes('signal again to stop at once') ? resolve() : setTimeout(check, 20));
      check();
    });
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    const report = stderr().slice(stderr().indexOf('mce API stopped at once')).split('\n');
    expect(report[0]).toBe('mce API stopped at once: 2 computations left unfinished, their results not stored (submit again to run):');
    expect(report.slice(1, 3).map((line) => line.replace(/submitted \S+$/, 'submitted …'))).toEqual([
      `  ${second} queued, session "${example.id}", submitted …`,
      `  ${first} running, session "${example.id}", submitted …`,
    ]);
  });
});
