import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricEngine, InMemoryDataProvider, type Session } from '@mce/core';
import {
  Judge,
  PriceTable,
  createLLMJudgedMetrics,
  judgeConfigFromEnv,
  loadCommittedPrices,
  pricingFrom,
  resetLogprobSupport,
} from '@mce/provider-native';
import { openMetricCache, SqliteCacheManager } from '@mce/client';
import { scoreTokens, startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';

const committedPrices = new PriceTable(loadCommittedPrices, 'committed');
let server: ScriptedLLMServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mce-cache-'));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function session(id: string): Session {
  return {
    kind: 'Session', id, startTime: 0, endTime: 10, traceIds: ['t'], userInput: 'What is 2 + 2?', finalResponse: '4',
    masCalls: [], agentCalls: [], taskCalls: [], toolCalls: [], mcpServers: [],
    llmCalls: [{
      kind: 'LLMCall', id: `${id}-llm`, name: 'chat', startTime: 1, endTime: 2, status: 'ok', operation: 'chat',
      usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 6 },
      inputMessages: [{ role: 'user', content: 'What is 2 + 2?' }], outputMessages: [{ role: 'assistant', content: '4' }],
      finishReasons: ['stop'], toolDefinitions: [],
    }],
  };
}

function engineWith(cacheFile: string, options: { read?: boolean; write?: boolean } = {}) {
  resetLogprobSupport();
  const judge = new Judge(
    judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o-mini', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url }),
    { pricing: pricingFrom(() => committedPrices) }, // the committed copy: no run-time refresh in tests
  );
  const engine = new MetricEngine({ strategy: 'asyncio', maxWorkers: 4 });
  for (const metric of createLLMJudgedMetrics(judge)) engine.registerMetric(metric);
  engine.setDataProvider(new InMemoryDataProvider([session('s1'), session('s2')]));
  const cache = new SqliteCacheManager(cacheFile, options);
  engine.setCacheManager(cache);
  return { engine, cache };
}

describe('record/replay on SQLite', () => {
  it('replays a second identical run with zero judge calls, keeping usage and cost, and saying so', async () => {
    const file = path.join(dir, 'replay', 'cache.db');
    server.setScript(() => ({
      text: 'Correct.\nScore: 5',
      logprobs: scoreTokens('Correct.', { ' 5': 0.75, ' 4': 0.25 }),
      usage: { prompt_tokens: 200, completion_tokens: 10, total_tokens: 210 },
    }));
    const first = engineWith(file);
    const metrics = ['AnswerRelevancy', 'ResponseCompleteness'];
    const recorded = await first.engine.computeSessionsBatch(['s1', 's2'], { metrics: { Session: metrics } });
    first.cache.close();
    expect(server.requests).toHaveLength(4);
    const original = recorded[0]!.results.find((r) => r.name === 'AnswerRelevancy')!;
    // expected score 4.75 → 0.9375; gpt-4o-mini: 200·1.5e-7 + 10·6e-7 = 3.6e-5
    expect(original.result).toBeCloseTo(0.9375, 12);
    expect(original.evaluationCost).toBeCloseTo(3.6e-5, 15);
    expect(original.details?.replayed).toBeUndefined();

    server.setScript([]); // any call now would fail
    const second = engineWith(file);
    expect(second.cache.size).toBe(4);
    const replayed = await second.engine.computeSessionsBatch(['s1', 's2'], { metrics: { Session: metrics } });
    second.cache.close();
    expect(server.requests).toHaveLength(0);
    expect(replayed.flatMap((c) => c.failed)).toEqual([]);
    const again = replayed[0]!.results.find((r) => r.name === 'AnswerRelevancy')!;
    expect(again).toMatchObject({
      result: original.result,
      reasoning: 'Correct.',
      evaluationModel: 'gpt-4o-mini',
      evaluationPromptTokenCount: 200,
      evaluationCompletionTokenCount: 10,
      evaluationTotalTokenCount: 210,
      evaluationCost: original.evaluationCost,
    });
    expect(again.details).toMatchObject({ replayed: true, scoring: 'logprob' });
  });

  it('does not store a failed judgement (no Score:) and computes it again next time', async () => {
    const file = path.join(dir, 'failure.db');
    server.setScript(() => ({ text: 'I cannot decide.' }));
    const first = engineWith(file);
    const out = await first.engine.computeSession('s1', { metrics: { Session: ['AnswerRelevancy'] } });
    expect(out.results).toEqual([]);
    expect(out.failed[0]?.error).toMatch(/AnswerRelevancy: the judge reply has no "Score: N" line/);
    expect(first.cache.size).toBe(0);
    first.cache.close();
    server.setScript(() => ({ text: 'Score: 3' }));
    const second = engineWith(file);
    const retry = await second.engine.computeSession('s1', { metrics: { Session: ['AnswerRelevancy'] } });
    second.cache.close();
    expect(server.requests).toHaveLength(1);
    expect(retry.results[0]?.result).toBe(0.5);
  });

  it('honours the read and write switches', async () => {
    const file = path.join(dir, 'switches.db');
    const entry = { value: 0.5, reasoning: 'r', details: { scoring: 'raw' }, recordedAt: '2026-01-01T00:00:00.000Z',
      evaluation: { model: 'm', promptTokens: 1, completionTokens: 2, totalTokens: 3, costUsd: 0.25 } };
    const writeOnly = new SqliteCacheManager(file, { read: false });
    await writeOnly.set('k', entry);
    expect(await writeOnly.get('k')).toBeUndefined();
    writeOnly.close();
    const readOnly = new SqliteCacheManager(file, { write: false });
    expect(await readOnly.get('k')).toEqual(entry);
    await readOnly.set('k2', entry);
    expect(await readOnly.get('k2')).toBeUndefined();
    readOnly.close();
  });

  it('opens from the cache: settings of mce_config.yaml', () => {
    expect(openMetricCache({ enabled: false, path: path.join(dir, 'x.db') })).toBeUndefined();
    expect(openMetricCache({ read: false, write: false, path: path.join(dir, 'x.db') })).toBeUndefined();
    const cache = openMetricCache({ path: path.join(dir, 'nested', 'y.db'), read: true, write: false });
    expect(cache).toBeInstanceOf(SqliteCacheManager);
    expect(cache?.read).toBe(true);
    expect(cache?.write).toBe(false);
    expect(fs.existsSync(path.join(dir, 'nested', 'y.db'))).toBe(true);
    cache?.close();
  });
});
