/**
 * An LLM-judged metric end to end through MCEClient: the judge is the real client against a scripted
 * OpenAI-compatible server on loopback; the result is stored with its evaluation usage and cost; a second run is
 * replayed from the SQLite record/replay cache with no LLM call; a reply without a score is a failure, never stored.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionSchema, type Session } from '@mce/core';
import { MCEClient, defaultMceConfig, openMetricCache, openStore } from '../src/index.js';
import { scoreTokens } from '../../../test-support/scripted-llm-server.mjs';
import { scriptedJudgeServer } from '../../../test-support/judge-env.js';

const weather = SessionSchema.parse(
  JSON.parse(readFileSync(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')),
) as Session;

describe('AnswerRelevancy through MCEClient', () => {
  const judge = scriptedJudgeServer();

  it('scores continuously, stores usage and cost, replays from cache, and never stores a failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-judged-'));
    const config = { ...defaultMceConfig(), metrics: { Session: ['AnswerRelevancy'] } };
    const open = async () =>
      MCEClient.open({ config, store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: openMetricCache({ path: join(dir, 'cache.db') }) });

    // 4 → 0.6, 5 → 0.3, 3 → 0.1: expected score 4.2, value (4.2 − 1) / 4 = 0.8.
    judge.server.setScript([{ text: 'On topic and complete.\nScore: 4', logprobs: scoreTokens('On topic and complete.', { '4': 0.6, '5': 0.3, '3': 0.1 }), usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } }]);
    const first = await open();
    await first.store.writeSessions([weather]);
    const [c1] = await first.computeAndStore('weather-001', { runId: 'run-1' });
    const r1 = c1?.results[0];
    expect(c1?.failed).toEqual([]);
    expect(r1?.result).toBeCloseTo(0.8, 10);
    expect(r1?.details).toMatchObject({ scoring: 'logprob' });
    expect(r1?.evaluationModel).toBe('gpt-4o-mini');
    expect([r1?.evaluationPromptTokenCount, r1?.evaluationCompletionTokenCount, r1?.evaluationTotalTokenCount]).toEqual([1000, 100, 1100]);
    // gpt-4o-mini: 1000 × 1.5e-7 + 100 × 6e-7
    expect(r1?.evaluationCost).toBeCloseTo(1000 * 1.5e-7 + 100 * 6e-7, 12);
    expect(judge.server.requests).toHaveLength(1);
    const stored = await first.getMetrics('weather-001', { metricIds: ['AnswerRelevancy'] });
    expect(stored).toEqual([r1]);
    await first.store.close();
    await first.close();

    // Same inputs again: replayed from the cache, same usage and cost, no LLM call.
    const second = await open();
    const [c2] = await second.computeAndStore('weather-001', { runId: 'run-2' });
    expect(judge.server.requests).toHaveLength(1);
    expect(c2?.results[0]).toMatchObject({ result: r1?.result, evaluationCost: r1?.evaluationCost, evaluationTotalTokenCount: 1100 });
    expect(c2?.results[0]?.details).toMatchObject({ replayed: true });
    await second.store.close();
    await second.close();

    // A reply without a score: the metric fails, nothing is stored for it.
    judge.server.setScript([{ text: 'I cannot decide.' }], { text: 'Still no idea.' });
    const third = await MCEClient.open({ config, store: await openStore(`sqlite:${join(dir, 'kg.db')}`), cache: false });
    const [c3] = await third.computeAndStore('weather-001', { runId: 'run-3' });
    expect(c3?.results).toEqual([]);
    expect(c3?.failed).toEqual([{ name: 'AnswerRelevancy', level: 'Session', measures: 'weather-001', error: expect.stringMatching(/Score/) }]);
    expect((await third.getMetrics('weather-001')).map((r) => r.id).sort()).toEqual([r1?.id, c2?.results[0]?.id].sort());
    await third.store.close();
    await third.close();
  });

  it('a judge slower than engine.metric_timeout_ms fails the element, transiently, and its request is abandoned', async () => {
    judge.server.setScript([{ text: 'Late.\nScore: 5', latencyMs: 3_000 }]);
    const before = judge.server.requests.length;
    const config = { ...defaultMceConfig(), metrics: { Session: ['AnswerRelevancy'] }, engine: { recursive: true, metricTimeoutMs: 150 } };
    const client = await MCEClient.open({ config, store: await openStore('sqlite::memory:'), cache: false });
    await client.store.writeSessions([weather]);
    const started = performance.now();
    const [c] = await client.computeAndStore('weather-001', { runId: 'slow' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(c?.results).toEqual([]);
    expect(c?.failed).toEqual([
      { name: 'AnswerRelevancy', level: 'Session', measures: 'weather-001', error: 'MetricTimeoutError: timed out after 150 ms', transient: true },
    ]);
    expect(judge.server.requests.length - before).toBe(1); // the aborted call is not retried
    expect(await client.getMetrics('weather-001')).toEqual([]);
    await client.store.close();
    await client.close();
  });
});
