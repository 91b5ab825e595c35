import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricEngine } from '@mce/core';
import { Judge, MemoryCacheManager, PriceTable, createLLMJudgedMetrics, judgeConfigFromEnv, loadCommittedPrices, pricingFrom, resetLogprobSupport } from '@mce/provider-native';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';
import { bookingSession } from './support/conversation.js';

let server: ScriptedLLMServer;
beforeAll(async () => {
  server = await startScriptedLLMServer();
});
afterAll(() => server.close());

describe('ToolUtilizationAccuracy through the engine', () => {
  it('makes one judge call per tool call, prices each, and the session mean follows', async () => {
    resetLogprobSupport();
    const session = bookingSession();
    session.toolCalls.push({ ...session.toolCalls[0]!, id: 'tool-2', toolCallId: 'call_2', arguments: { from: 'Lyon', to: 'Nice' }, startTime: 35 });
    // The tool call id is in the prompt: answer each with its own score and usage.
    server.setScript((body) => {
      const prompt = body.messages?.[1]?.content ?? '';
      return prompt.includes('(tool-2)')
        ? { text: 'Arguments do not match the request.\nScore: 2', usage: { prompt_tokens: 900, completion_tokens: 30, total_tokens: 930 } }
        : { text: 'Right tool, result used.\nScore: 5', usage: { prompt_tokens: 1100, completion_tokens: 50, total_tokens: 1150 } };
    });
    const table = new PriceTable(loadCommittedPrices, 'committed');
    const judge = new Judge(
      judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o-mini', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_LOGPROBS: 'false' }),
      { pricing: pricingFrom(() => table) },
    );
    const engine = new MetricEngine({ strategy: 'asyncio', maxWorkers: 4 });
    for (const metric of createLLMJudgedMetrics(judge)) engine.registerMetric(metric);
    const cache = new MemoryCacheManager();
    engine.setCacheManager(cache);
    const selection = { metrics: { ToolCall: ['ToolUtilizationAccuracy'], Session: ['MeanToolUtilizationAccuracy'] } };
    const out = await engine.computeLoadedSession(session, selection);
    expect(out.failed).toEqual([]);
    expect(server.requests).toHaveLength(2);
    const byId = new Map(out.results.map((r) => [`${r.name}:${r.measures}`, r]));
    const first = byId.get('ToolUtilizationAccuracy:tool-1')!;
    const second = byId.get('ToolUtilizationAccuracy:tool-2')!;
    expect(first.result).toBe(1);
    expect(second.result).toBe(0.25);
    // gpt-4o-mini: 1.5e-7 per input token, 6e-7 per output token
    expect(first.evaluationCost).toBeCloseTo(1100 * 1.5e-7 + 50 * 6e-7, 15);
    expect(second.evaluationCost).toBeCloseTo(900 * 1.5e-7 + 30 * 6e-7, 15);
    const mean = byId.get('MeanToolUtilizationAccuracy:booking-1')!;
    expect(mean.result).toBe(0.625);
    // The aggregate's evaluation fields are the sums of its per-tool-call judge calls.
    expect(mean.evaluationModel).toBe('gpt-4o-mini');
    expect(mean.evaluationPromptTokenCount).toBe(2000);
    expect(mean.evaluationCompletionTokenCount).toBe(80);
    expect(mean.evaluationTotalTokenCount).toBe(2080);
    expect(mean.evaluationCost).toBeCloseTo(first.evaluationCost + second.evaluationCost, 15);
    expect(mean.evaluationCost).toBeCloseTo(2000 * 1.5e-7 + 80 * 6e-7, 15);
    expect(mean.details?.judgeUsage).toMatchObject({ model: 'gpt-4o-mini', promptTokens: 2000, completionTokens: 80, totalTokens: 2080 });
    expect((mean.details?.judgeUsage as { costUsd: number }).costUsd).toBeCloseTo(2000 * 1.5e-7 + 80 * 6e-7, 15);

    // Replayed: no call, the same values and usage; the aggregate recomputed from the replayed results.
    const replay = await engine.computeLoadedSession(session, selection);
    expect(server.requests).toHaveLength(2);
    const again = new Map(replay.results.map((r) => [`${r.name}:${r.measures}`, r]));
    expect(again.get('ToolUtilizationAccuracy:tool-2')).toMatchObject({ result: 0.25, evaluationTotalTokenCount: 930, details: { replayed: true } });
    expect(again.get('MeanToolUtilizationAccuracy:booking-1')).toMatchObject({ result: 0.625, evaluationModel: 'gpt-4o-mini', evaluationTotalTokenCount: 2080 });
  });
});
