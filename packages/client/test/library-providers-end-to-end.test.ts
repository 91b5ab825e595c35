/**
 * Library-backed provider metrics end to end through MCEClient, judged by the judge configured from the environment
 * (OPENAI_API_KEY, LLM_MODEL_NAME, LLM_BASE_MODEL_URL_MCE, a per-metric `model`) against a scripted server: stored
 * with the usage of every call priced by mce's price table, replayed from the SQLite cache with no call, a missing
 * input a failure that is never stored.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionSchema, type Session } from '@mce/core';
import { deepevalProvider } from '@mce/provider-deepeval';
import { opikProvider } from '@mce/provider-opik';
import { ragasProvider } from '@mce/provider-ragas';
import { MCEClient, defaultMceConfig, openMetricCache, openStore } from '../src/index.js';
import { type ScriptedStep } from '../../../test-support/scripted-llm-server.mjs';
import { scriptedJudgeServer } from '../../../test-support/judge-env.js';

const weather = SessionSchema.parse(
  JSON.parse(readFileSync(new URL('../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')),
) as Session;

const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
function step(body: Record<string, unknown>): ScriptedStep {
  const schema = (body.response_format as { json_schema?: { schema?: { properties?: object } } } | undefined)?.json_schema?.schema;
  const keys = Object.keys(schema?.properties ?? {}).sort().join(',');
  const json: Record<string, unknown> = {
    statements: { statements: ['It is 14 °C in Lyon.'] },
    verdicts: { verdicts: [{ verdict: 'yes' }] },
    reason: { reason: 'answers the question' },
    'reason,score': { score: 0.75, reason: 'useful' },
  };
  return { text: JSON.stringify(json[keys] ?? {}), usage };
}

describe('library provider metrics through MCEClient', () => {
  const judge = scriptedJudgeServer();

  it('stores results with every call counted and priced, replays them, and stores no failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mce-libprov-'));
    const config = {
      ...defaultMceConfig(),
      discoverProviders: false, // the providers below, from this checkout's sources
      metrics: { Session: ['deepeval.AnswerRelevancyMetric', 'opik:Usefulness', 'ragas:ContextRecall'] },
      metricOptions: { 'opik:Usefulness': { model: 'gpt-4o' } },
    };
    const open = async () =>
      MCEClient.open({
        config,
        store: await openStore(`sqlite:${join(dir, 'kg.db')}`),
        cache: openMetricCache({ path: join(dir, 'cache.db') }),
        providers: [ragasProvider, deepevalProvider, opikProvider],
      });
    judge.server.setScript((body) => step(body));
    const first = await open();
    await first.store.writeSessions([weather]);
    const [c1] = await first.computeAndStore('weather-001', { runId: 'run-1' });
    const byName = new Map(c1!.results.map((r) => [`${r.provider}:${r.name}`, r]));
    const relevancy = byName.get('deepeval:AnswerRelevancy')!;
    expect(relevancy.result).toBe(1);
    expect(relevancy.evaluationModel).toBe('gpt-4o-mini');
    // Three calls of 1000 + 100 tokens, at gpt-4o-mini's committed prices (1.5e-7 and 6e-7 USD per token).
    expect([relevancy.evaluationPromptTokenCount, relevancy.evaluationCompletionTokenCount, relevancy.evaluationTotalTokenCount]).toEqual([3000, 300, 3300]);
    expect(relevancy.evaluationCost).toBeCloseTo(3000 * 1.5e-7 + 300 * 6e-7, 12);
    const usefulness = byName.get('opik:Usefulness')!;
    expect([usefulness.result, usefulness.evaluationModel, usefulness.evaluationTotalTokenCount]).toEqual([0.75, 'gpt-4o', 1100]);
    expect(usefulness.evaluationCost).toBeCloseTo(1000 * 2.5e-6 + 100 * 1e-5, 12); // gpt-4o
    expect(judge.server.requests.map((r) => r.body.model).sort()).toEqual(['gpt-4o', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini']);
    expect(new Set(judge.server.requests.map((r) => r.headers.authorization))).toEqual(new Set(['Bearer test-key']));
    // The example session has no reference answer: a failure, not a stored 0.
    expect(c1!.failed).toEqual([expect.objectContaining({ name: 'ContextRecall', error: expect.stringContaining('no reference answer') })]);
    const stored = await first.getMetrics('weather-001');
    expect(stored.map((r) => `${r.provider}:${r.name}`).sort()).toEqual(['deepeval:AnswerRelevancy', 'opik:Usefulness']);
    await first.store.close();
    await first.close();

    judge.server.setScript([]);
    const second = await open();
    const [c2] = await second.computeAndStore('weather-001', { runId: 'run-2' });
    expect(judge.server.requests).toHaveLength(0);
    const replayed = c2!.results.find((r) => r.provider === 'deepeval')!;
    expect(replayed).toMatchObject({ result: 1, evaluationTotalTokenCount: 3300, evaluationCost: relevancy.evaluationCost });
    expect(replayed.details).toMatchObject({ replayed: true });
    await second.store.close();
    await second.close();
  });
});
