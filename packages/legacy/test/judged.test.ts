/**
 * Judged metrics through the legacy route, the judge being mce's against a scripted OpenAI-compatible server on
 * loopback: a continuous score where the old engine gave 0 or 1, span results for the tool call, and a judge that
 * fails giving a failed metric, never a value. Requests as test_api.py's test_with_plugin_metrics (agntcy/telemetry-hub
 * at 8e27775, metrics_computation_engine/src/metrics_computation_engine/tests/test_api.py).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCEClient, defaultMceConfig, openMetricCache } from '@mce/client';
import { scoreTokens, startScriptedLLMServer, type ScriptedLLMServer } from '../../../test-support/scripted-llm-server.mjs';
import { pointJudgeAt, resetJudgeEnv } from '../../../test-support/judge-env.js';
import { closeClient, openClientWith, postJson, serveLegacy, type Served } from './support.js';

const SESSION = 'multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606';

describe('judged metrics through POST /compute_metrics', () => {
  let judge: ScriptedLLMServer;
  let client: MCEClient;
  let server: Served;
  beforeAll(async () => {
    judge = await startScriptedLLMServer();
    pointJudgeAt(judge.url, { MCE_JUDGE_MAX_RETRIES: '0' });
    ({ client } = await openClientWith(['langgraph_supervisor_research.json']));
    server = await serveLegacy(client);
  });
  afterAll(async () => {
    await server.close();
    await closeClient(client);
    resetJudgeEnv();
    await judge.close();
  });

  it('GoalSuccessRate (test_with_plugin_metrics) is a continuous score; ToolUtilizationAccuracy a span result', async () => {
    // 4 → 0.6, 5 → 0.3, 3 → 0.1: expected score 4.2, value (4.2 − 1) / 4 = 0.8.
    judge.setScript(() => ({ text: 'Achieved.\nScore: 4', logprobs: scoreTokens('Achieved.', { '4': 0.6, '5': 0.3, '3': 0.1 }) }));
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['GoalSuccessRate', 'ToolUtilizationAccuracy'], data_fetching_infos: { session_ids: [SESSION], batch_config: {} } });
    expect(status).toBe(200);
    expect(body.results.failed_metrics).toEqual([]);
    const [goal] = body.results.session_metrics;
    expect(goal).toMatchObject({ metric_name: 'GoalSuccessRate', aggregation_level: 'session', source: 'native', success: true, session_id: [SESSION] });
    expect(goal.value).toBeCloseTo(0.8, 10);
    expect(goal.reasoning.length).toBeGreaterThan(0);
    const [tool] = body.results.span_metrics;
    expect(tool).toMatchObject({ metric_name: 'ToolUtilizationAccuracy', aggregation_level: 'span', category: 'agent', entities_involved: ['tavily_search_results_json'] });
    expect(tool.span_id).toHaveLength(1);
    expect(tool.value).toBeCloseTo(0.8, 10);
    expect(judge.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('a result replayed from mce\'s record/replay cache says from_cache', async () => {
    judge.setScript(() => ({ text: 'Achieved.\nScore: 4', logprobs: scoreTokens('Achieved.', { '4': 0.6, '5': 0.3, '3': 0.1 }) }));
    const dir = mkdtempSync(join(tmpdir(), 'mce-legacy-cache-'));
    const cached = await MCEClient.open({ config: defaultMceConfig(), store: client.store, cache: openMetricCache({ path: join(dir, 'cache.db') }) });
    const served = await serveLegacy(cached);
    try {
      const ask = async () => (await postJson(`${served.url}/compute_metrics`, { metrics: ['GoalSuccessRate'], data_fetching_infos: { session_ids: [SESSION] } })).body.results.session_metrics[0];
      const first = await ask();
      const calls = judge.requests.length;
      const second = await ask();
      expect([first.from_cache, second.from_cache]).toEqual([false, true]);
      expect(second.value).toBe(first.value);
      expect(judge.requests.length).toBe(calls);
    } finally {
      await served.close();
      await cached.close();
    }
  });

  it('a judge that fails gives failed metrics with the error, and no value', async () => {
    judge.setScript(() => ({ status: 500, error: { message: 'scripted outage' } }));
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['GoalSuccessRate'], data_fetching_infos: { session_ids: [SESSION] } });
    expect(status).toBe(200);
    expect(body.results.session_metrics).toEqual([]);
    expect(body.results.failed_metrics).toEqual([expect.objectContaining({ metric_name: 'GoalSuccessRate', aggregation_level: 'session', session_id: [SESSION] })]);
    expect(body.results.failed_metrics[0].error_message).toContain('500');
  });
});
