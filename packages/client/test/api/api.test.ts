import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UNKNOWN_FIELD_PLACES, type SessionComputation } from '@mce/core';
import { MCEClient, createApiApp, defaultMceConfig, openStore, serveApi, type StoredMetricResult } from '../../src/index.js';
import { bareSession, DEFINITIONS, metricResult, T0_MS } from '@mce/store/conformance';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8'));

// The stores' directories, removed once every store of the file is closed.
const madeDirs: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
};
afterAll(() => madeDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('REST API', () => {
  let client: MCEClient;
  let app: ReturnType<typeof createApiApp>;
  beforeAll(async () => {
    const dir = tempDir('mce-api-test-');
    client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    app = createApiApp(client);
  });
  afterAll(async () => {
    await client.store.close();
    await client.close();
  });

  it('stores a session, computes it, and returns its stored results', async () => {
    const posted = await app.request('/sessions', { method: 'POST', body: JSON.stringify(example), headers: { 'content-type': 'application/json' } });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ sessionIds: ['weather-001'], warnings: [] });

    const listed = (await (await app.request('/sessions?limit=10')).json()) as { id: string }[];
    expect(listed.map((s) => s.id)).toEqual(['weather-001']);
    // Times as epoch ms or ISO: the session starts at 1767261600000 (2026-01-01T10:00:00Z).
    const ids = async (query: string) => ((await (await app.request(`/sessions?${query}`)).json()) as { id: string }[]).map((s) => s.id);
    expect(await ids('from=1767261600000')).toEqual(['weather-001']);
    expect(await ids('from=1767261600001')).toEqual([]);
    expect(await ids('to=2026-01-01T10:00:00Z')).toEqual(['weather-001']);
    expect(await ids('from=1767261600000&to=2026-01-01T10:00:00Z')).toEqual(['weather-001']); // a window of one instant
    const session = (await (await app.request('/sessions/weather-001')).json()) as { llmCalls: unknown[] };
    expect(session.llmCalls).toHaveLength(2);

    const computed = (await (await app.request('/sessions/weather-001/compute?metrics=Duration,LLMCallCount', { method: 'POST' })).json()) as SessionComputation;
    expect(computed.results.find((r) => r.name === 'LLMCallCount' && r.level === 'Session')?.result).toBe(2);

    const stored = (await (await app.request('/sessions/weather-001/metrics?recursive=true&metrics=Duration')).json()) as SessionComputation;
    expect(stored.results.map((r) => r.id).sort()).toEqual(computed.results.filter((r) => r.name === 'Duration').map((r) => r.id).sort());
    // Not recursive unless asked: the session's own results only.
    const own = (await (await app.request('/sessions/weather-001/metrics?metrics=Duration')).json()) as SessionComputation;
    expect(own.results.map((r) => `${r.name}@${r.level}:${r.measures}`)).toEqual(['Duration@Session:weather-001']);
  });

  it('stores a session with fields the format does not define, and names them in its answer with their lines', async () => {
    const { llmCalls, ...rest } = example as { llmCalls: Record<string, unknown>[] };
    const calls = Array.from({ length: 3 }, (_, i) => ({ ...llmCalls[0], id: `typo-${i}`, startTme: 1, usage: { ...(llmCalls[0]!.usage as object), inputTokns: 5 } }));
    const body = { exportedBy: 'tool', sessions: [{ ...rest, id: 'typo-session', llmCalls: calls, toolcalls: [], mcpServers: [{ name: 's', tools: [{ name: 't', inputSchema: { anything: 1 } }], promts: [] }] }] };
    // Pretty-printed, as a person writes one: each warning names the line and column of its (first) field's name.
    const posted = await app.request('/sessions', { method: 'POST', body: JSON.stringify(body, null, 2), headers: { 'content-type': 'application/json' } });
    expect([posted.status, await posted.json()]).toEqual([201, {
      sessionIds: ['typo-session'],
      warnings: [
        { code: 'unknown-field', message: 'exportedBy: unknown field, ignored', path: 'exportedBy', line: 2, column: 3, count: 1 },
        // In the body's order: `mcpServers` comes before the `llmCalls` put last.
        {
          code: 'unknown-field',
          message: 'sessions[0].mcpServers[0].promts: unknown field, ignored (did you mean "prompts"?)',
          path: 'sessions[0].mcpServers[0].promts',
          line: 95,
          column: 11,
          count: 1,
          suggestion: 'prompts',
        },
        {
          code: 'unknown-field',
          message: 'sessions[0].llmCalls[0].usage.inputTokns: unknown field, ignored (did you mean "inputTokens"?); 3 in all at sessions[*].llmCalls[*].usage.inputTokns',
          path: 'sessions[0].llmCalls[0].usage.inputTokns',
          line: 121,
          column: 13,
          count: 3,
          suggestion: 'inputTokens',
        },
        {
          code: 'unknown-field',
          message: 'sessions[0].llmCalls[0].startTme: unknown field, ignored (did you mean "startTime"?); 3 in all at sessions[*].llmCalls[*].startTme',
          path: 'sessions[0].llmCalls[0].startTme',
          line: 168,
          column: 11,
          count: 3,
          suggestion: 'startTime',
        },
        {
          code: 'unknown-field',
          message: 'sessions[0].toolcalls: unknown field, ignored (did you mean "toolCalls"?)',
          path: 'sessions[0].toolcalls',
          line: 313,
          column: 7,
          count: 1,
          suggestion: 'toolCalls',
        },
      ],
    }]);
    const stored = (await (await app.request('/sessions/typo-session')).json()) as { llmCalls: Record<string, unknown>[] };
    expect([stored.llmCalls.length, 'startTme' in stored.llmCalls[0]!]).toEqual([3, false]);
    // A body refused for a missing field names the unknown ones after it; each with its place in the body (the
    // missing field's: the object that lacks it).
    const refused = await app.request('/sessions', { method: 'POST', body: '{\n  "id": "x",\n  "startTme": 0,\n  "endTime": 1\n}', headers: { 'content-type': 'application/json' } });
    expect([refused.status, await refused.json()]).toEqual([400, {
      error:
        'not an mce session document: startTime (line 1, column 1): Invalid input: expected number, received undefined; ' +
        'startTme (line 3, column 3): unknown field, ignored (did you mean "startTime"?)',
    }]);
  });

  it('answers 404 for an unknown session and 400 for bad input', async () => {
    expect((await app.request('/sessions/nope')).status).toBe(404);
    expect((await app.request('/sessions/nope/compute', { method: 'POST' })).status).toBe(404);
    const bad = await app.request('/sessions', { method: 'POST', body: '{"id": 3}', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/not an mce session document/);
    const twice = { id: 'dup', startTime: 0, endTime: 2, toolCalls: [
      { kind: 'ToolCall', id: 'c1', name: 't', startTime: 0, endTime: 1, status: 'ok', toolName: 't' },
      { kind: 'ToolCall', id: 'c1', name: 't', startTime: 1, endTime: 2, status: 'ok', toolName: 't' },
    ] };
    const duplicate = await app.request('/sessions', { method: 'POST', body: JSON.stringify(twice), headers: { 'content-type': 'application/json' } });
    expect([duplicate.status, ((await duplicate.json()) as { error: string }).error]).toEqual([
      400, 'not an mce session document: toolCalls.1.id (line 1, column 172): call id "c1" is already used by toolCalls[0]',
    ]);
    expect((await app.request('/sessions/dup')).status).toBe(404); // nothing written
    const ghost = { id: 'ghost', startTime: 0, endTime: 2, toolCalls: [
      { kind: 'ToolCall', id: 'c1', name: 't', startTime: 0, endTime: 1, status: 'ok', toolName: 't', agentCallId: 'nobody' },
    ] };
    const dangling = await app.request('/sessions', { method: 'POST', body: JSON.stringify(ghost), headers: { 'content-type': 'application/json' } });
    expect([dangling.status, ((await dangling.json()) as { error: string }).error]).toEqual([
      400, 'not an mce session document: toolCalls.0.agentCallId (line 1, column 163): "nobody" is not an agent call of this session',
    ]);
    expect((await app.request('/sessions?limit=-1')).status).toBe(400);
    const badTime = await app.request('/sessions?from=yesterday');
    expect(badTime.status).toBe(400);
    expect(((await badTime.json()) as { error: string }).error).toMatch(/from must be an ISO 8601 time or epoch milliseconds/);
    expect((await app.request('/sessions?limit=99999999999999999999')).status).toBe(400);
    expect((await app.request('/sessions?limit=')).status).toBe(400);
    // A page is built whole in memory: one of a million sessions is refused, naming the bound.
    const huge = await app.request('/sessions?limit=1000000');
    expect([huge.status, ((await huge.json()) as { error: string }).error]).toEqual([
      400, 'query parameter limit must be at most 1000 (got 1000000); follow the Link header for the next page',
    ]);
    expect((await app.request('/sessions?limit=1000')).status).toBe(200);
    expect((await app.request('/sessions/nope/metrics')).status).toBe(404);
    const misspelt = await app.request('/sessions/weather-001/metrics?metrics=Durration');
    expect([misspelt.status, ((await misspelt.json()) as { error: string }).error]).toEqual([400, 'metrics: Unknown metric "Durration" (did you mean "Duration"?)']);
    // Query values the spec does not allow, and a window that ends before it starts.
    for (const query of ['limit=1e2', 'limit=0x10', 'limit=%201', 'from=', 'from=Jan%201%202026', 'from=2026-01-02&to=2026-01-01']) {
      expect([query, (await app.request(`/sessions?${query}`)).status]).toEqual([query, 400]);
    }
    // An unknown session is 404 before its metric names are looked at, on both routes.
    expect((await app.request('/sessions/nope/compute?metrics=Durration', { method: 'POST' })).status).toBe(404);
    expect((await app.request('/sessions/nope/metrics?metrics=Durration')).status).toBe(404);
    // `sessions` that is no list is named as the fault (not the fields of a session the body is not).
    const notList = await app.request('/sessions', { method: 'POST', body: '{"sessions":"x"}', headers: { 'content-type': 'application/json' } });
    expect([notList.status, await notList.json()]).toEqual([400, { error: 'not an mce session document: sessions (line 1, column 13): Invalid input: expected array, received string' }]);
    // A body that is no JSON is named where it stops being JSON: here the `"endTime"` that follows a value without a comma.
    const noComma = await app.request('/sessions', { method: 'POST', body: '{\n  "id": "x",\n  "startTime": 0 "endTime": 1\n}', headers: { 'content-type': 'application/json' } });
    expect([noComma.status, await noComma.json()]).toEqual([400, { error: 'request body is not JSON (line 3, column 18)' }]);
    const longId = 'x'.repeat(5000);
    expect(((await (await app.request(`/sessions/${longId}`)).json()) as { error: string }).error).toBe(
      `Session not found: ${'x'.repeat(200)}… (5000 characters)`,
    );
    const recursive = await app.request('/sessions/weather-001/metrics?recursive=yes');
    expect([recursive.status, await recursive.json()]).toEqual([400, { error: 'query parameter recursive must be true or false (got "yes")' }]);
    const wrongMethod = await app.request('/healthz', { method: 'DELETE' });
    expect([wrongMethod.status, wrongMethod.headers.get('allow'), await wrongMethod.json()]).toEqual([
      405, 'GET, HEAD', { error: 'DELETE is not allowed on /healthz (allowed: GET, HEAD)' },
    ]);
    const session = await app.request('/sessions/weather-001', { method: 'PATCH' });
    expect([session.status, session.headers.get('allow')]).toEqual([405, 'GET, DELETE, HEAD']);
    const results = await app.request('/results', { method: 'DELETE' });
    expect([results.status, results.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const sessions = await app.request('/sessions', { method: 'PUT' });
    expect([sessions.status, sessions.headers.get('allow')]).toEqual([405, 'GET, POST, HEAD']);
    const noRoute = await app.request('/session', { method: 'GET' });
    expect([noRoute.status, await noRoute.json()]).toEqual([404, { error: 'no route GET /session' }]);
  });

  it('deletes a session with its results (204), answers 404 for one not stored, and takes it again as a new one', async () => {
    const doc = JSON.stringify({ ...example, id: 'to-delete' });
    const post = () => app.request('/sessions', { method: 'POST', body: doc, headers: { 'content-type': 'application/json' } });
    expect((await post()).status).toBe(201);
    expect((await app.request('/sessions/to-delete/compute?metrics=Duration', { method: 'POST' })).status).toBe(200);
    const ofSession = async () => ((await (await app.request('/results?session=to-delete&limit=1000')).json()) as StoredMetricResult[]).length;
    expect(await ofSession()).toBe(6); // Duration of the session and its MAS, agent, two LLM and one tool call
    const deleted = await app.request('/sessions/to-delete', { method: 'DELETE' });
    expect([deleted.status, await deleted.text()]).toEqual([204, '']);
    expect((await app.request('/sessions/to-delete')).status).toBe(404);
    expect(await ofSession()).toBe(0);
    const again = await app.request('/sessions/to-delete', { method: 'DELETE' });
    expect([again.status, await again.json()]).toEqual([404, { error: 'Session not found: to-delete' }]);
    expect((await app.request('/sessions/weather-001')).status).toBe(200); // the others stay
    // Posted again, it is a new session: no result of before.
    expect((await post()).status).toBe(201);
    expect((await app.request('/sessions/to-delete')).status).toBe(200);
    expect(await ofSession()).toBe(0);
    expect((await app.request(`/sessions/${encodeURIComponent('a/b?c')}`, { method: 'DELETE' })).status).toBe(404);
  });

  describe('results across sessions', () => {
    let own: MCEClient;
    let results: ReturnType<typeof createApiApp>;
    // Newest first: r-c1 (50 s), r-b2 (40), r-a3 (30), r-a2 and r-b1 (20: by id), r-a1 (10).
    const written = [
      metricResult('r-a1', 'A', { at: 10, value: 100 }),
      metricResult('r-a2', 'A', { at: 20, value: 0.9, metric: DEFINITIONS[2], level: 'LLMCall', measures: 'A-llm' }),
      metricResult('r-a3', 'A', { at: 30, value: 50, metric: DEFINITIONS[1], level: 'ToolCall', measures: 'A-tool' }),
      metricResult('r-b1', 'B,1', { at: 20, value: 200 }),
      metricResult('r-b2', 'B,1', { at: 40, value: 0.2, metric: DEFINITIONS[2] }),
      metricResult('r-c1', 'C', { at: 50, value: 5, level: 'LLMCall', measures: 'C-llm' }),
    ];
    const row = (id: string) => {
      const result = written.find((r) => r.id === id)!;
      return { result, metric: DEFINITIONS.find((d) => d.id === result.ofMetricType) };
    };
    /** The cursor a page ending at result `id` links the next one with. */
    const after = (id: string) => Buffer.from(JSON.stringify([[...written, ...more].find((r) => r.id === id)!.timestamp, id])).toString('base64url');
    const more = Array.from({ length: 95 }, (_, i) => metricResult(`r-more-${String(i).padStart(2, '0')}`, 'C', { at: 60 + i }));
    const get = async (query: string) => {
      const res = await results.request(`/results${query}`);
      const body = (await res.json()) as StoredMetricResult[] | { error: string };
      return { status: res.status, link: res.headers.get('link'), body: Array.isArray(body) ? body.map((r) => r.result.id) : body.error };
    };
    beforeAll(async () => {
      own = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(tempDir('mce-api-results-'), 'kg.db')}`), cache: false });
      results = createApiApp(own);
      await own.store.writeSessions([bareSession('A', T0_MS), bareSession('B,1', T0_MS), bareSession('C', T0_MS)]);
      await own.store.writeMetricResults(DEFINITIONS, written);
    });
    afterAll(async () => {
      await own.store.close();
      await own.close();
    });

    it('answers the rows newest first, each with its Metric, session and what it measures', async () => {
      const res = await results.request('/results');
      expect([res.status, res.headers.get('link')]).toEqual([200, null]);
      expect(await res.json()).toStrictEqual(['r-c1', 'r-b2', 'r-a3', 'r-a2', 'r-b1', 'r-a1'].map(row));
    });

    it('filters by metric, level, session, time window and value, and pages with a link to the next page', async () => {
      const ids = (body: string[]) => ({ status: 200, link: null, body });
      expect(await get('?metrics=Duration')).toEqual(ids(['r-c1', 'r-b1', 'r-a1']));
      expect(await get('?metrics=deepeval:AnswerRelevancy&metrics=ToolErrorRate')).toEqual(ids(['r-b2', 'r-a3', 'r-a2']));
      expect(await get('?metrics=Duration,%20mce:ToolErrorRate')).toEqual(ids(['r-c1', 'r-a3', 'r-b1', 'r-a1']));
      expect(await get('?levels=llmcall,ToolCall')).toEqual(ids(['r-c1', 'r-a3', 'r-a2']));
      expect(await get('?levels=Session&levels=TaskCall')).toEqual(ids(['r-b2', 'r-b1', 'r-a1']));
      expect(await get('?session=B%2C1&session=C')).toEqual(ids(['r-c1', 'r-b2', 'r-b1'])); // an id with a comma
      expect(await get('?session=nobody')).toEqual(ids([]));
      expect(await get(`?from=${T0_MS + 20_000}&to=2026-01-01T00:00:40Z`)).toEqual(ids(['r-b2', 'r-a3', 'r-a2', 'r-b1']));
      expect(await get('?from=2026-01-01T00:00:20.001')).toEqual(ids(['r-c1', 'r-b2', 'r-a3']));
      expect(await get('?min=50')).toEqual(ids(['r-a3', 'r-b1', 'r-a1']));
      expect(await get('?min=0.5&max=1e2')).toEqual(ids(['r-c1', 'r-a3', 'r-a2', 'r-a1']));
      expect(await get('?max=-1')).toEqual(ids([]));
      expect(await get('?metrics=Duration&levels=Session&max=150')).toEqual(ids(['r-a1']));
      // The next page's link: where this one ended (the cursor of its last row), not an offset.
      expect(await get('?limit=2')).toEqual({ status: 200, link: `</results?limit=2&cursor=${after('r-b2')}>; rel="next"`, body: ['r-c1', 'r-b2'] });
      expect(await get(`?limit=2&cursor=${after('r-b2')}`)).toEqual({ status: 200, link: `</results?limit=2&cursor=${after('r-a2')}>; rel="next"`, body: ['r-a3', 'r-a2'] });
      expect(await get(`?limit=2&cursor=${after('r-a2')}`)).toEqual({ status: 200, link: `</results?limit=2&cursor=${after('r-a1')}>; rel="next"`, body: ['r-b1', 'r-a1'] });
      expect(await get(`?limit=2&cursor=${after('r-a1')}`)).toEqual(ids([]));
      expect(await get('?levels=Session,LLMCall&limit=2&offset=2')).toEqual({
        status: 200, link: `</results?levels=Session%2CLLMCall&limit=2&cursor=${after('r-b1')}>; rel="next"`, body: ['r-a2', 'r-b1'],
      });
      expect(await get(`?levels=Session,LLMCall&cursor=${after('r-b1')}`)).toEqual(ids(['r-a1']));
      expect(await get('?limit=2&offset=4')).toEqual({ status: 200, link: `</results?limit=2&cursor=${after('r-a1')}>; rel="next"`, body: ['r-b1', 'r-a1'] });
      expect(await get('?limit=2&offset=6')).toEqual(ids([]));
      expect(await get('?cursor=abc')).toEqual({ status: 400, link: null, body: 'query parameter cursor is not one this API gave: follow the Link header of the page before' });
      expect(await get('?limit=0')).toEqual(ids([]));
    });

    it('names the bad parameter (400), an unknown one included, and an unknown metric with the likely one', async () => {
      const bad = (error: string) => ({ status: 400, link: null, body: error });
      expect(await get('?levels=Sesion')).toEqual(bad('query parameter levels must name ontology levels: Session, MASCall, AgentCall, TaskCall, LLMCall, ToolCall (got "Sesion")'));
      expect(await get('?limit=-1')).toEqual(bad('query parameter limit must be a non-negative integer (got "-1")'));
      expect(await get('?limit=1&limit=2')).toEqual(bad('query parameter limit is given more than once'));
      expect(await get('?limit=1001')).toEqual(bad('query parameter limit must be at most 1000 (got 1001); follow the Link header for the next page'));
      expect(await get('?from=yesterday')).toEqual(bad('query parameter from must be an ISO 8601 time or epoch milliseconds (got "yesterday")'));
      expect(await get('?min=abc&max=')).toEqual(bad('query parameter min must be a number (got "abc"); query parameter max must be a number (got "")'));
      expect(await get('?from=2026-01-02&to=2026-01-01')).toEqual(bad('query parameter from is later than to'));
      expect(await get('?min=2&max=1')).toEqual(bad('query parameter min is greater than max'));
      expect(await get('?metrics=,')).toEqual(bad('query parameter metrics must name at least one metric'));
      expect(await get('?session=')).toEqual(bad('query parameter session must not be empty'));
      expect(await get('?metric=Duration&sessions=A')).toEqual(bad('unknown query parameter "metric", "sessions" (known: metrics, levels, session, from, to, min, max, limit, offset, cursor)'));
      expect(await get('?metrics=Durration')).toEqual(bad('metrics: Unknown metric "Durration" (did you mean "Duration"?)'));
    });

    it('summarizes the results per Metric and level at /results/summary, with the filters of /results and no paging', async () => {
      const iso = (seconds: number) => new Date(T0_MS + seconds * 1000).toISOString();
      const [duration, toolErrors, relevancy] = DEFINITIONS as [(typeof DEFINITIONS)[0], (typeof DEFINITIONS)[0], (typeof DEFINITIONS)[0]];
      const one = (metric: typeof duration, level: string, value: number, at: number) => ({
        metric, level, count: 1, mean: value, min: value, max: value, p50: value, p90: value, p95: value, sessions: 1, first: iso(at), last: iso(at),
      });
      // Duration at Session: 100 and 200 (nearest ranks 1, 2, 2).
      const sessions = { metric: duration, level: 'Session', count: 2, mean: 150, min: 100, max: 200, p50: 100, p90: 200, p95: 200, sessions: 2, first: iso(10), last: iso(20) };
      const summary = async (query: string) => {
        const res = await results.request(`/results/summary${query}`);
        return [res.status, await res.json()];
      };
      expect(await summary('')).toStrictEqual([
        200,
        [one(relevancy, 'Session', 0.2, 40), one(relevancy, 'LLMCall', 0.9, 20), sessions, one(duration, 'LLMCall', 5, 50), one(toolErrors, 'ToolCall', 50, 30)],
      ]);
      expect(await summary(`?metrics=Duration&levels=session&session=B%2C1&session=A&from=${T0_MS}&to=2026-01-01T00:01:00Z&min=50&max=1e3`)).toStrictEqual([200, [sessions]]);
      expect(await summary('?min=1000')).toStrictEqual([200, []]);
      const bad = (error: string) => [400, { error }];
      expect(await summary('?limit=10&offset=0')).toEqual(bad('unknown query parameter "limit", "offset" (known: metrics, levels, session, from, to, min, max)'));
      expect(await summary('?levels=Sesion')).toEqual(bad('query parameter levels must name ontology levels: Session, MASCall, AgentCall, TaskCall, LLMCall, ToolCall (got "Sesion")'));
      expect(await summary('?min=2&max=1')).toEqual(bad('query parameter min is greater than max'));
      expect(await summary('?metrics=Durration')).toEqual(bad('metrics: Unknown metric "Durration" (did you mean "Duration"?)'));
    });

    it('answers 100 results a page unless limit says otherwise', async () => {
      await own.store.writeMetricResults(DEFINITIONS, more);
      const first = await get('');
      expect([first.body.length, first.link]).toEqual([100, `</results?limit=100&cursor=${after('r-b1')}>; rel="next"`]);
      expect(await get(`?limit=100&cursor=${after('r-b1')}`)).toEqual({ status: 200, link: null, body: ['r-a1'] });
      expect(await get('?offset=100')).toEqual({ status: 200, link: null, body: ['r-a1'] });
    });
  });

  it('refuses a request body above the limit with 413, before storing anything', async () => {
    const small = createApiApp(client, { maxBodyBytes: 1000 });
    const big = JSON.stringify({ ...example, id: 'too-big', userInput: 'x'.repeat(2000) });
    const refused = await small.request('/sessions', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
    expect([refused.status, await refused.json()]).toEqual([413, { error: 'request body larger than 1000 bytes' }]);
    expect((await small.request('/sessions/too-big')).status).toBe(404);
  });

  it('refuses what another site\'s page could send: a foreign Host or Origin (403), a body that is not JSON (415)', async () => {
    const guarded = createApiApp(client, { allowedHosts: ['localhost', '127.0.0.1'] });
    const doc = JSON.stringify({ ...example, id: 'csrf-1' });
    const rebound = await guarded.request('http://attacker.example:8000/sessions', { headers: { host: 'attacker.example:8000' } });
    expect([rebound.status, await rebound.json()]).toEqual([403, { error: 'host attacker.example is not served here' }]);
    const crossSite = await guarded.request('http://127.0.0.1:8000/sessions', {
      method: 'POST',
      body: doc,
      headers: { host: '127.0.0.1:8000', origin: 'http://evil.example', 'content-type': 'application/json' },
    });
    expect(crossSite.status).toBe(403);
    const plain = await guarded.request('http://127.0.0.1:8000/sessions', { method: 'POST', body: doc, headers: { host: '127.0.0.1:8000', 'content-type': 'text/plain' } });
    expect([plain.status, await plain.json()]).toEqual([415, { error: 'request body must be application/json (got text/plain)' }]);
    expect((await guarded.request('http://127.0.0.1:8000/sessions/csrf-1', { headers: { host: '127.0.0.1:8000' } })).status).toBe(404);
    const own = await guarded.request('http://localhost:8000/sessions', {
      method: 'POST',
      body: doc,
      headers: { host: 'localhost:8000', origin: 'http://localhost:8000', 'content-type': 'application/json; charset=utf-8' },
    });
    expect(own.status).toBe(201);
    // Host names and media types are case-insensitive.
    const upper = await guarded.request('http://LOCALHOST:8000/sessions/csrf-1', { headers: { host: 'LocalHost:8000' } });
    expect(upper.status).toBe(200);
    const typed = await guarded.request('http://localhost:8000/sessions', {
      method: 'POST',
      body: JSON.stringify({ ...example, id: 'csrf-2' }),
      headers: { host: 'localhost:8000', 'content-type': 'Application/JSON; charset=UTF-8' },
    });
    expect(typed.status).toBe(201);
    // A page whose origin is opaque (a sandboxed frame, a file) sends Origin: null: not one of the allowed hosts.
    const opaque = await guarded.request('http://localhost:8000/sessions', {
      method: 'POST',
      body: JSON.stringify({ ...example, id: 'csrf-3' }),
      headers: { host: 'localhost:8000', origin: 'null', 'content-type': 'application/json' },
    });
    expect([opaque.status, await opaque.json()]).toEqual([403, { error: 'requests from null are not accepted' }]);
    expect((await guarded.request('http://localhost:8000/sessions/csrf-3', { headers: { host: 'localhost:8000' } })).status).toBe(404);
  });

  it('a store held by another writer answers 503 with Retry-After, not a server error', async () => {
    const dir = tempDir('mce-api-busy-');
    const file = join(dir, 'kg.db');
    const store = await openStore(`sqlite:${file}`);
    // Its busy timeout cut to 50 ms so the test need not wait the store's 10 s.
    (store as unknown as { db: Database.Database }).db.pragma('busy_timeout = 50');
    const busyClient = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    const holder = new Database(file);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const res = await createApiApp(busyClient).request('/sessions', { method: 'POST', body: JSON.stringify(example), headers: { 'content-type': 'application/json' } });
      expect([res.status, res.headers.get('retry-after'), ((await res.json()) as { error: string }).error]).toEqual([503, '1', 'the store is busy (database is locked); retry']);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      await busyClient.store.close();
      await busyClient.close();
    }
  });

  it('a document nested too deeply is bad input (400), not a server error', async () => {
    const deep = `{"id":"deep","startTime":0,"endTime":1,"attributes":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}`;
    const res = await app.request('/sessions', { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } });
    // Refused on its text, before anything walks it (a copy to the body reader's thread would overflow too).
    expect([res.status, await res.json()]).toEqual([400, { error: 'request body nests deeper than 256 levels (line 1, column 1328)' }]);
    const compute = await app.request('/sessions/weather-001/compute', { method: 'POST', body: `{"runId":${'['.repeat(300)}${']'.repeat(300)}}`, headers: { 'content-type': 'application/json' } });
    expect([compute.status, await compute.json()]).toEqual([400, { error: 'request body nests deeper than 256 levels (line 1, column 265)' }]);
    // A bracket inside a string nests nothing.
    const inString = await app.request('/sessions', { method: 'POST', body: JSON.stringify({ ...example, id: 'brackets', attributes: { text: '{['.repeat(1000) } }), headers: { 'content-type': 'application/json' } });
    expect(inString.status).toBe(201);
  });

  it('with a token, every request but /healthz needs it as a bearer token (401)', async () => {
    const locked = createApiApp(client, { token: 's3cret' });
    const without = await locked.request('/sessions');
    expect([without.status, without.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="mce"']);
    expect((await locked.request('/sessions', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await locked.request('/sessions', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    expect((await locked.request('/sessions', { headers: { authorization: 'bearer s3cret' } })).status).toBe(200); // the scheme is case-insensitive
    expect((await locked.request('/sessions', { headers: { authorization: 'Bearer s3cret-and-more' } })).status).toBe(401);
    expect((await locked.request('/healthz')).status).toBe(200);
    // A stranger hears nothing about the body they sent: 401 before the size limit's 413.
    const small = createApiApp(client, { token: 's3cret', maxBodyBytes: 10 });
    const big = await small.request('/sessions', { method: 'POST', body: JSON.stringify(example), headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(401);
  });

  it('compute takes its metrics from the query (listed or repeated) or a JSON body, never silently all of them', async () => {
    const computed = async (path: string, init: RequestInit = {}) => {
      const res = await app.request(path, { method: 'POST', ...init });
      const body = (await res.json()) as SessionComputation & { error?: string };
      return { status: res.status, names: res.status === 200 ? [...new Set(body.results.map((r) => r.name))].sort() : body.error };
    };
    const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(await computed('/sessions/weather-001/compute?metrics=Duration&metrics=Cost')).toEqual({ status: 200, names: ['Cost', 'Duration'] });
    expect(await computed('/sessions/weather-001/compute', json({ metrics: ['LLMCallCount'] }))).toEqual({ status: 200, names: ['LLMCallCount'] });
    expect(await computed('/sessions/weather-001/compute', json({ metrics: { Session: ['Duration'] } }))).toEqual({ status: 200, names: ['Duration'] });
    expect(await computed('/sessions/weather-001/compute?metrics=,,')).toEqual({ status: 400, names: 'query parameter metrics: give at least one metric name' });
    expect(await computed('/sessions/weather-001/compute?metrics=Duration,%20Cost%20')).toEqual({ status: 200, names: ['Cost', 'Duration'] });
    // A body of white space is no body: the query's metrics are computed.
    expect(await computed('/sessions/weather-001/compute?metrics=Duration', { body: ' \n', headers: { 'content-type': 'application/json' } })).toEqual({
      status: 200,
      names: ['Duration'],
    });
    expect(await computed('/sessions/weather-001/compute?metrics=Cost', json({ metrics: ['Duration'] }))).toEqual({
      status: 400,
      names: 'give the metrics in the query or in the body, not both',
    });
    // A bad body names each fault with its line and column in the body, as POST /sessions does (an unknown field: its
    // name; the others: their value).
    expect(await computed('/sessions/weather-001/compute', json({ metric: ['Duration'] }))).toEqual({ status: 400, names: 'request body: metric (line 1, column 2): Unrecognized key: "metric"' });
    expect(await computed('/sessions/weather-001/compute', json({ metrics: [] }))).toEqual({ status: 400, names: 'request body: metrics (line 1, column 12): Too small: expected array to have >=1 items' });
    const pretty = JSON.stringify({ metrics: { Session: ['Duration'], Sesion: ['Cost'] }, runId: '', recursive: 'yes', metric: ['Duration'] }, null, 2);
    expect(await computed('/sessions/weather-001/compute', { body: pretty, headers: { 'content-type': 'application/json' } })).toEqual({
      status: 400,
      names:
        'request body: metrics.Sesion (line 6, column 5): Unrecognized key: "Sesion"; runId (line 10, column 12): Too small: expected string to have >=1 characters; ' +
        'recursive (line 11, column 16): Invalid input: expected boolean, received string; metric (line 12, column 3): Unrecognized key: "metric"',
    });
    expect(await computed('/sessions/weather-001/compute', { body: '{\n  "metrics": ["Duration",]\n}', headers: { 'content-type': 'application/json' } })).toEqual({
      status: 400,
      names: 'request body is not JSON (line 2, column 26)', // the `]` after a trailing comma
    });
    // A run id makes a re-run overwrite its results instead of adding new ones.
    const stored = async () => ((await (await app.request('/sessions/weather-001/metrics?metrics=TotalTokens')).json()) as SessionComputation).results.length;
    const before = await stored();
    for (let i = 0; i < 2; i++) {
      expect(await computed('/sessions/weather-001/compute', json({ metrics: ['TotalTokens'], runId: 'nightly', recursive: false }))).toEqual({ status: 200, names: ['TotalTokens'] });
    }
    expect(await stored()).toBe(before + 1);
  });

  it('lists sessions a page at a time (100 by default), with a link to the next page', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `page-${String(i).padStart(3, '0')}`, startTime: 1_000 + i, endTime: 2_000 + i }));
    const posted = await app.request('/sessions', { method: 'POST', body: JSON.stringify({ sessions: many }), headers: { 'content-type': 'application/json' } });
    expect(posted.status).toBe(201);
    const first = await app.request('/sessions?to=1100');
    const page = (await first.json()) as { id: string }[];
    expect(page).toHaveLength(100);
    expect(first.headers.get('link')).toBe('</sessions?to=1100&limit=100&offset=100>; rel="next"');
    const second = await app.request('/sessions?to=1100&limit=100&offset=100');
    expect([((await second.json()) as { id: string }[]).map((s) => s.id), second.headers.get('link')]).toEqual([['page-000'], null]);
    // An empty page asked for is no full page: no link (a client following it would ask for the same page forever).
    const none = await app.request('/sessions?limit=0');
    expect([await none.json(), none.headers.get('link')]).toEqual([[], null]);
  });

  it('documents itself with OpenAPI and serves over HTTP', async () => {
    const server = await serveApi(client, { port: 0 });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/openapi.json`);
      const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toContain('/sessions/{id}/compute');
      expect(Object.keys(doc.paths)).toContain('/computations/{id}');
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
      // On a loopback address, only the loopback names are served (a DNS-rebound name is not).
      // (fetch will not send a Host header of its own choosing: node:http does.)
      const status = await new Promise<number | undefined>((resolve, reject) => {
        request({ host: '127.0.0.1', port: server.port, path: '/sessions', headers: { host: `rebound.example:${server.port}` } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        }).on('error', reject).end();
      });
      expect(status).toBe(403);
      // Over HTTP: a POST whose body says nothing of its type is refused like a typed non-JSON one (a page of another
      // site can send either); a POST with no body at all needs no type.
      const post = (path: string, body?: string) =>
        new Promise<[number | undefined, string]>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST' }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve([res.statusCode, text]));
          });
          req.on('error', reject);
          req.end(body);
        });
      expect(await post('/sessions', JSON.stringify({ id: 'untyped', startTime: 0, endTime: 1 }))).toEqual([
        415,
        JSON.stringify({ error: 'request body must be application/json (got no content type)' }),
      ]);
      expect((await post('/sessions/weather-001/compute', '{"metrics":["Duration"]}'))[0]).toBe(415);
      expect((await post('/sessions/weather-001/compute?metrics=Duration'))[0]).toBe(200);
      // Every reference resolves inside the document, and the session schema it embeds accepts a real session.
      const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
      expect(refs.filter((r) => !r.startsWith('"$ref":"#'))).toEqual([]);
      const ajv = new Ajv2020({ strict: false });
      const validSession = ajv.compile((doc as unknown as { components: { schemas: { Session: object } } }).components.schemas.Session);
      expect(validSession(example)).toBe(true);
      expect(validSession({ ...example, startTime: 'noon' })).toBe(false);
      // Each answer validates against the schema the document gives its status.
      type Op = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
      const paths = doc.paths as Record<string, Record<string, Op>>;
      const components = (doc as unknown as { components: object }).components;
      const resultsPage = await fetch(`http://127.0.0.1:${server.port}/results?limit=20`);
      expect(((await resultsPage.clone().json()) as unknown[]).length).toBe(20); // a page of real rows to validate
      const summaryRows = await fetch(`http://127.0.0.1:${server.port}/results/summary`);
      expect(((await summaryRows.clone().json()) as unknown[]).length).toBeGreaterThan(1);
      const answers: Array<[string, string, Response]> = [
        ['/sessions', 'get', await fetch(`http://127.0.0.1:${server.port}/sessions`)],
        ['/metrics/catalog', 'get', await fetch(`http://127.0.0.1:${server.port}/metrics/catalog`)],
        ['/healthz', 'get', await fetch(`http://127.0.0.1:${server.port}/healthz`)],
        ['/sessions/{id}', 'get', await fetch(`http://127.0.0.1:${server.port}/sessions/weather-001`)],
        ['/sessions/{id}', 'get', await fetch(`http://127.0.0.1:${server.port}/sessions/nope`)],
        ['/sessions/{id}/compute', 'post', await fetch(`http://127.0.0.1:${server.port}/sessions/weather-001/compute?metrics=Duration,Cost`, { method: 'POST' })],
        ['/sessions/{id}/metrics', 'get', await fetch(`http://127.0.0.1:${server.port}/sessions/weather-001/metrics?recursive=true`)],
        ['/results', 'get', resultsPage],
        ['/results', 'get', await fetch(`http://127.0.0.1:${server.port}/results?levels=Nope`)],
        ['/results/summary', 'get', summaryRows],
        ['/results/summary', 'get', await fetch(`http://127.0.0.1:${server.port}/results/summary?limit=1`)],
        ['/sessions/{id}', 'delete', await fetch(`http://127.0.0.1:${server.port}/sessions/nope`, { method: 'DELETE' })],
      ];
      // Asynchronous compute: its 202 with the headers documented, the status once finished, an unknown computation.
      const accepted = await fetch(`http://127.0.0.1:${server.port}/sessions/weather-001/compute?metrics=Duration`, { method: 'POST', headers: { prefer: 'respond-async' } });
      expect(Object.keys((paths['/sessions/{id}/compute']?.post?.responses['202'] as { headers: object }).headers)).toEqual(['Location', 'Preference-Applied']);
      expect([accepted.status, accepted.headers.get('preference-applied')]).toEqual([202, 'respond-async']);
      let finished: Response;
      for (;;) {
        finished = await fetch(`http://127.0.0.1:${server.port}${accepted.headers.get('location')}`);
        if (!['queued', 'running'].includes(((await finished.clone().json()) as { status: string }).status)) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(((await finished.clone().json()) as { status: string }).status).toBe('succeeded');
      answers.push(
        ['/sessions/{id}/compute', 'post', accepted],
        ['/computations/{id}', 'get', finished],
        ['/computations/{id}', 'get', await fetch(`http://127.0.0.1:${server.port}/computations/nope`)],
      );
      // A deletion answers 204 without a body, as documented.
      expect(paths['/sessions/{id}']?.delete?.responses['204']).toEqual({ description: 'removed' });
      const posted = await fetch(`http://127.0.0.1:${server.port}/sessions`, { method: 'POST', body: JSON.stringify({ ...example, id: 'openapi-deleted' }), headers: { 'content-type': 'application/json' } });
      expect(posted.status).toBe(201);
      const removed = await fetch(`http://127.0.0.1:${server.port}/sessions/openapi-deleted`, { method: 'DELETE' });
      expect([removed.status, await removed.text()]).toEqual([204, '']);
      // Posting: an answer without warnings, one with a warning of each shape (past the cap: one without a path), a refusal.
      const postJson = (body: unknown) => fetch(`http://127.0.0.1:${server.port}/sessions`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const stray = Object.fromEntries(Array.from({ length: MAX_UNKNOWN_FIELD_PLACES + 2 }, (_, i) => [`extra${i}`, i]));
      const warned = await postJson({ ...example, id: 'openapi-warned', startTme: 0, ...stray });
      const warnings = ((await warned.clone().json()) as { warnings: { path?: string; suggestion?: string }[] }).warnings;
      expect([warnings.length, warnings[0]!.suggestion, warnings.at(-1)!.path]).toEqual([MAX_UNKNOWN_FIELD_PLACES + 1, 'startTime', undefined]);
      answers.push(['/sessions', 'post', await postJson(example)], ['/sessions', 'post', warned], ['/sessions', 'post', await postJson({ id: 3 })]);
      for (const [path, method, res] of answers) {
        const schema = paths[path]?.[method]?.responses[String(res.status)]?.content?.['application/json']?.schema;
        expect([path, res.status, schema !== undefined]).toEqual([path, res.status, true]);
        const validate = ajv.compile({ ...schema, components });
        expect([path, res.status, validate(await res.json()), validate.errors ?? null]).toEqual([path, res.status, true, null]);
      }
      // A second server on the same port is refused (the promise rejects; nothing crashes the process).
      await expect(serveApi(client, { port: server.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await server.close();
    }
  });
});
