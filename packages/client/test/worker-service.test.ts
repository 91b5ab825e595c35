/**
 * MCEClient + MCEWorkerService on the real stores: a batch is computed and written in one flush, unknown sessions
 * are reported (not thrown), a re-run with the same run ids overwrites, and a store failure is thrown (transient).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionSchema, type Metric, type MetricProvider, type Session } from '@mce/core';
import { MCEClient, MCEWorkerService, defaultMceConfig, openStore, type KnowledgeGraphStore } from '../src/index.js';
import { PG_URL, needService } from '../../../test-support/services.js';
import { scoreTokens, startScriptedLLMServer } from '../../../test-support/scripted-llm-server.mjs';
import { pointJudgeAt, resetJudgeEnv } from '../../../test-support/judge-env.js';

const weather = SessionSchema.parse(
  JSON.parse(readFileSync(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')),
) as Session;
const copy = (id: string): Session => ({ ...structuredClone(weather), id });

const { Client } = pg;
const pgUp = await needService('postgres');

const PG_SCHEMA = `mce_ws_${process.pid}_${Date.now()}`;
const adapters: [string, boolean, () => Promise<KnowledgeGraphStore>][] = [
  ['sqlite', true, () => openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-ws-')), 'kg.db')}`)],
  ['postgres', pgUp, () => openStore(PG_URL, { schema: PG_SCHEMA })],
];

afterAll(async () => {
  if (!pgUp) return;
  const pg = new Client({ connectionString: PG_URL });
  await pg.connect();
  await pg.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  await pg.end();
});

describe.each(adapters)('MCEWorkerService on %s', (_name, available, open) => {
  it.skipIf(!available)('computes a batch in one flush, reports unknown sessions, overwrites on redelivery', async () => {
    const store = await open();
    await using client = await MCEClient.open({ config: { ...defaultMceConfig(), metrics: { Session: ['Duration', 'LLMCallCount'], LLMCall: ['Cost'] } }, store, cache: false });
    try {
      await store.writeSessions([copy('s-1'), copy('s-2')]);
      const service = new MCEWorkerService(client);
      const batch = [
        { sessionId: 's-1', runId: 'msg-a' },
        { sessionId: 'missing', runId: 'msg-b' },
        { sessionId: 's-2', runId: 'msg-c' },
      ];
      const first = await service.processBatch(batch);
      expect(first.items.map((i) => [i.sessionId, i.status, i.results])).toEqual([
        ['s-1', 'ok', 4],
        ['missing', 'unknown-session', 0],
        ['s-2', 'ok', 4],
      ]);
      expect(first.written).toBe(8);
      const again = await service.processBatch(batch);
      expect(again.written).toBe(8);
      const stored = await client.getMetrics('s-1', { recursive: true });
      expect(stored).toHaveLength(4);
      expect(stored.find((r) => r.name === 'LLMCallCount')?.result).toBe(2);
      // Another message for the same session adds its own observations.
      await service.processBatch([{ sessionId: 's-1', runId: 'msg-d' }]);
      expect(await client.getMetrics('s-1', { recursive: true })).toHaveLength(8);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!available)('settles a session deleted while its batch computes as unknown-session, storing nothing of it', async () => {
    const store = await open();
    // The deletion lands between the batch's read of its sessions and its flush.
    const racing = new Proxy(store, {
      get(target, key) {
        if (key === 'getSessions') {
          return async (ids: readonly string[]) => {
            const read = await target.getSessions(ids);
            await target.deleteSessions(['w-gone']);
            return read;
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    await using client = await MCEClient.open({ config: { ...defaultMceConfig(), metrics: { Session: ['Duration', 'LLMCallCount'], LLMCall: ['Cost'] } }, store: racing, cache: false });
    try {
      await store.writeSessions([copy('w-kept'), copy('w-gone')]);
      const outcome = await new MCEWorkerService(client).processBatch([
        { sessionId: 'w-gone', runId: 'msg-gone' },
        { sessionId: 'w-kept', runId: 'msg-kept' },
      ]);
      expect(outcome.items.map((i) => [i.sessionId, i.status, i.results])).toEqual([
        ['w-gone', 'unknown-session', 0],
        ['w-kept', 'ok', 4],
      ]);
      expect([outcome.written, outcome.rejected]).toEqual([4, 4]);
      expect(await store.queryMetricResults({ sessionIds: ['w-gone'] })).toEqual([]);
      expect(await store.queryMetricResults({ sessionIds: ['w-kept'] })).toHaveLength(4);
    } finally {
      await store.close();
    }
  });
});

describe.each(adapters)('MCEWorkerService redelivery on %s', (name, available, open) => {
  it.skipIf(!available)('a redelivered message whose metric fails now leaves no earlier score of its run', async () => {
    let failing = false;
    const flaky: Metric = {
      metadata: {
        name: 'Flaky', provider: 'acme', levels: ['Session'], nature: 'deterministic', unit: 'count',
        valueRange: 'non-negative number', description: 'test', requirements: [], dependsOn: [],
      },
      compute: () => {
        if (failing) throw new Error('now failing');
        return { value: 5 };
      },
    };
    const acme: MetricProvider = { name: 'acme', description: 'test', version: '1.0.0', metrics: () => [flaky] };
    const store = await open();
    await using client = await MCEClient.open({
      config: { ...defaultMceConfig(), metrics: { Session: ['Duration', 'acme:Flaky'] } },
      store,
      providers: [acme],
      cache: false,
    });
    try {
      await store.writeSessions([copy('redeliver-1')]);
      const service = new MCEWorkerService(client);
      expect(service.streamsResults).toBe(name === 'postgres'); // both write paths are covered
      const names = async () => (await client.getMetrics('redeliver-1')).map((r) => r.name).sort();
      await service.processBatch([{ sessionId: 'redeliver-1', runId: 'msg-x' }]);
      expect(await names()).toEqual(['Duration', 'Flaky']);
      failing = true;
      const again = await service.processBatch([{ sessionId: 'redeliver-1', runId: 'msg-x' }]);
      expect(again.items.map((i) => [i.status, i.results, i.failedMetrics])).toEqual([['ok', 1, 1]]);
      expect(await names()).toEqual(['Duration']);
    } finally {
      await store.close();
    }
  });
});

describe('MCEWorkerService with an LLM-judged metric', () => {
  it.skipIf(!pgUp)('holds no PostgreSQL transaction open while the judge is called, and stores the judged result', async () => {
    const server = await startScriptedLLMServer({
      script: [{ text: 'Relevant.\nScore: 4', logprobs: scoreTokens('Relevant.', { '4': 1 }), latencyMs: 700 }],
    });
    pointJudgeAt(server.url);
    // Our own application_name: other test files share the server and may have transactions of their own.
    const app = `mce_ws_judged_${process.pid}`;
    const store = await openStore(`${PG_URL}?application_name=${app}`, { schema: PG_SCHEMA });
    const watcher = new Client({ connectionString: PG_URL });
    await watcher.connect();
    try {
      await using client = await MCEClient.open({
        config: { ...defaultMceConfig(), metrics: { Session: ['Duration', 'AnswerRelevancy'] } },
        store,
        cache: false,
      });
      await store.writeSessions([copy('judged-1')]);
      const service = new MCEWorkerService(client);
      expect(service.streamsResults).toBe(false);
      const batch = service.processBatch([{ sessionId: 'judged-1', runId: 'msg-j' }]);
      while (server.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS open FROM pg_stat_activity WHERE application_name = $1 AND xact_start IS NOT NULL`,
        [app],
      );
      expect(rows[0].open).toBe(0);
      const outcome = await batch;
      expect(outcome.items.map((i) => [i.status, i.results, i.failedMetrics])).toEqual([['ok', 2, 0]]);
      const stored = await client.getMetrics('judged-1');
      expect(stored.find((r) => r.name === 'AnswerRelevancy')?.result).toBeCloseTo(0.75, 10);
      expect(stored.find((r) => r.name === 'Duration')?.result).toBe(4200); // the example session's 10:00:00.000 to 10:00:04.200
    } finally {
      await watcher.end();
      await store.close();
      resetJudgeEnv();
      await server.close();
    }
  });

  it('counts the judge usage of a message once: the session mean restating its tool calls’ usage is not added again', async () => {
    const server = await startScriptedLLMServer({ script: [{ text: 'Fitting tool use.\nScore: 5', logprobs: scoreTokens('Fitting tool use.', { '5': 1 }) }] });
    pointJudgeAt(server.url);
    const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-ws-')), 'kg.db')}`);
    try {
      await using client = await MCEClient.open({
        config: { ...defaultMceConfig(), metrics: { ToolCall: ['ToolUtilizationAccuracy'], Session: ['MeanToolUtilizationAccuracy'] } },
        store,
        cache: false,
      });
      await store.writeSessions([copy('tools-1')]);
      const outcome = await new MCEWorkerService(client).processBatch([{ sessionId: 'tools-1', runId: 'msg-t' }]);
      const stored = await client.getMetrics('tools-1', { recursive: true });
      const perCall = stored.find((r) => r.name === 'ToolUtilizationAccuracy')!;
      const mean = stored.find((r) => r.name === 'MeanToolUtilizationAccuracy')!;
      // One tool call, one judge call of the scripted 100 + 20 tokens; the mean carries the same usage as its own.
      expect(server.requests).toHaveLength(1);
      expect([perCall.evaluationTotalTokenCount, mean.evaluationTotalTokenCount]).toEqual([120, 120]);
      expect(mean.evaluationCost).toBe(perCall.evaluationCost);
      expect(perCall.evaluationCost).toBeGreaterThan(0);
      expect(outcome.items.map((i) => [i.status, i.results, i.evaluationTokens])).toEqual([['ok', 2, 120]]);
      expect(outcome.items[0]!.evaluationCost).toBe(perCall.evaluationCost);
    } finally {
      await store.close();
      resetJudgeEnv();
      await server.close();
    }
  });

  it('streams nothing on SQLite, which has no streaming flush', async () => {
    const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-ws-')), 'kg.db')}`);
    await using client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    expect(new MCEWorkerService(client).streamsResults).toBe(false);
    await store.close();
  });

  it.skipIf(!pgUp)('streams the results of a deterministic selection on PostgreSQL', async () => {
    const store = await openStore(PG_URL, { schema: PG_SCHEMA });
    await using client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    expect(new MCEWorkerService(client).streamsResults).toBe(true);
    await store.close();
  });
});

describe('MCEWorkerService.processSession', () => {
  it('computes and stores one session under its own run id, or under the one given', async () => {
    const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-ws-')), 'kg.db')}`);
    await using client = await MCEClient.open({ config: { ...defaultMceConfig(), metrics: { Session: ['Duration', 'LLMCallCount'] } }, store, cache: false });
    await store.writeSessions([copy('one')]);
    const service = new MCEWorkerService(client);
    expect(await service.processSession('one', 'run-a')).toMatchObject({ sessionId: 'one', status: 'ok', results: 2, failedMetrics: 0 });
    await service.processSession('one', 'run-a'); // same run id: overwritten
    expect(await client.getMetrics('one')).toHaveLength(2);
    await service.processSession('one'); // a run of its own: added
    expect(await client.getMetrics('one')).toHaveLength(4);
    expect((await service.processSession('nobody')).status).toBe('unknown-session');
    await store.close();
  });
});

describe('MCEWorkerService failures', () => {
  it('throws when the store is gone, so the caller can retry the batch', async () => {
    const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'mce-ws-')), 'kg.db')}`);
    const client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false });
    await store.writeSessions([copy('s-1')]);
    await store.close();
    await expect(new MCEWorkerService(client).processBatch([{ sessionId: 's-1', runId: 'r' }])).rejects.toThrow();
    await client.close();
  });
});
