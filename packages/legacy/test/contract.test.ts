/**
 * The telemetry-hub API's contract, asked over real HTTP on loopback of the legacy routes mounted in the mce API
 * server, over an SQLite store holding the ClickHouse fixture the old tests use (`api_noa_2.json`, here
 * autogen_langgraph_moderator.json). Each request is taken from the telemetry-hub repository (agntcy/telemetry-hub
 * at 8e27775): metrics_computation_engine/src/metrics_computation_engine/tests/test_api.py (the test named beside
 * each case) and metrics_computation_engine/src/metrics_computation_engine/examples/service_test.py. The old tests
 * mocked the data layer and named a session `session-1`; here the session is real, so its id is the fixture's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, defaultMceConfig } from '@mce/client';
import { closeClient, openClientWith, postJson, serveLegacy, type JsonBody, type Served } from './support.js';

const SESSION = 'noa-moderator_4d798de1-e517-49f9-9a77-9f86a314d6b7';
// The fixture's session starts 2025-08-05T15:40:10Z: the default 7-day batch window of a day later holds it.
const NOW = new Date('2025-08-06T12:00:00Z');

/** Every field of the old MetricResult dataclass, with the type its clients read. */
function expectLegacyResult(r: Record<string, unknown>): void {
  expect(Object.keys(r).sort()).toEqual(
    ['agent_id', 'aggregation_level', 'app_name', 'category', 'description', 'edges_involved', 'entities_involved', 'error_message', 'from_cache', 'label', 'metadata', 'metric_name', 'reasoning', 'session_id', 'source', 'span_id', 'success', 'unit', 'value'].sort(),
  );
  expect(typeof r.metric_name).toBe('string');
  expect(['number', 'string', 'object']).toContain(typeof r.value);
  expect(['span', 'session', 'agent', 'population']).toContain(r.aggregation_level);
  for (const key of ['category', 'app_name', 'description', 'reasoning', 'unit', 'source']) expect(typeof r[key]).toBe('string');
  for (const key of ['span_id', 'session_id', 'entities_involved', 'edges_involved']) expect(Array.isArray(r[key]) && (r[key] as unknown[]).every((x) => typeof x === 'string')).toBe(true);
  expect(typeof r.success).toBe('boolean');
  expect(typeof r.from_cache).toBe('boolean');
  expect(r.agent_id === null || typeof r.agent_id === 'string').toBe(true);
  expect(typeof r.metadata).toBe('object');
}

describe('the telemetry-hub REST contract', () => {
  let client: MCEClient;
  let server: Served;
  beforeAll(async () => {
    ({ client } = await openClientWith(['autogen_langgraph_moderator.json', 'langgraph_supervisor_research.json']));
    server = await serveLegacy(client, { now: () => NOW });
  });
  afterAll(async () => {
    await server.close();
    await closeClient(client);
  });

  it('GET /status (test_status_endpoint)', async () => {
    const response = await fetch(`${server.url}/status`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toEqual({ status: 'ok', message: 'Metric Computation Engine is running', timestamp: NOW.toISOString(), service: 'metrics_computation_engine' });
  });

  it('GET /health, which the old mce-cli health calls', async () => {
    const response = await fetch(`${server.url}/health`);
    expect([response.status, ((await response.json()) as { status: string }).status]).toEqual([200, 'healthy']);
  });

  it('GET /metrics (test_list_metrics_endpoint): counts and the native / plugins split', async () => {
    const body = (await (await fetch(`${server.url}/metrics`)).json()) as { total_metrics: number; native_metrics: number; plugin_metrics: number; metrics: { native: Record<string, JsonBody>; plugins: Record<string, JsonBody> } };
    expect(body.total_metrics).toBe(body.native_metrics + body.plugin_metrics);
    expect(Object.keys(body.metrics.native)).toHaveLength(body.native_metrics);
    expect(Object.keys(body.metrics.plugins)).toHaveLength(body.plugin_metrics);
    // The old native names, Cycles among them, as the old listing had them.
    for (const name of ['AgentToAgentInteractions', 'AgentToToolInteractions', 'Cycles', 'ToolErrorRate', 'ToolUtilizationAccuracy', 'GraphDeterminismScore']) {
      expect(body.metrics.native[name]?.source).toBe('native');
    }
    expect(body.metrics.native.Cycles).toMatchObject({ name: 'Cycles', class: 'CyclesCount', aggregation_level: 'session', supports_agent_computation: true });
    expect(body.metrics.native.GraphDeterminismScore.aggregation_level).toBe('population');
    expect(body.metrics.plugins.GoalSuccessRate).toMatchObject({ source: 'plugin', aggregation_level: 'session' });
    expect(body.metrics.native.CyclesCount).toBeUndefined();
  });

  it('session ids with an empty batch_config (test_valid_session_ids_request, test_response_structure, test_results_formatted_correctly)', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['AgentToAgentInteractions'], data_fetching_infos: { session_ids: [SESSION], batch_config: {} } });
    expect(status).toBe(200);
    expect(body.metrics).toEqual(['AgentToAgentInteractions']);
    expect(Object.keys(body.results).sort()).toEqual(['agent_metrics', 'failed_metrics', 'population_metrics', 'session_metrics', 'span_metrics']);
    expect(body.results.session_metrics).toHaveLength(1);
    const result = body.results.session_metrics[0];
    expectLegacyResult(result);
    // mce reads the moderator's methods (agent_id moderator-agent.init_run / .invoke) as one agent: no transition.
    expect(result).toMatchObject({ metric_name: 'AgentToAgentInteractions', value: {}, aggregation_level: 'session', category: 'application', session_id: [SESSION], source: 'native', unit: 'transitions', success: true });
    expect(result.metadata).toEqual({ total_transitions: 0, unique_transitions: 0, all_transitions: [] });
    expect(result.span_id).toHaveLength(3);
  });

  it('a batch of num_sessions with no time range takes the last 7 days (test_valid_batch_request)', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['AgentToAgentInteractions'], data_fetching_infos: { session_ids: [], batch_config: { num_sessions: 10 } } });
    expect(status).toBe(200);
    // Only the moderator session started in the week before NOW; the supervisor one is from another month.
    expect(body.results.session_metrics.map((r: { session_id: string[] }) => r.session_id[0])).toEqual([SESSION]);
  });

  it('a batch over a time range (examples/service_test.py) and an adapter metric', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, {
      metrics: ['AgentToToolInteractions', 'deepeval.AnswerRelevancyMetric'],
      data_fetching_infos: { batch_config: { time_range: { start: '2000-06-20T15:04:05Z', end: '2040-06-29T08:52:55Z' } } },
    });
    expect(status).toBe(200);
    const sessions = body.results.session_metrics.filter((r: { metric_name: string }) => r.metric_name === 'AgentToToolInteractions').map((r: { session_id: string[] }) => r.session_id[0]).sort();
    expect(sessions).toEqual(['multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606', SESSION]);
    const research = body.results.session_metrics.find((r: { session_id: string[] }) => r.session_id[0] !== SESSION);
    expect(research.value).toEqual({ '(Agent: research) -> (Tool: tavily_search_results_json)': 1 });
    // deepeval's AnswerRelevancy: resolved through @mce/provider-deepeval; with no judge reachable each LLM call's
    // result is a failed metric naming it, never a score.
    const deepeval = body.results.failed_metrics.filter((f: { metric_name: string }) => f.metric_name === 'deepeval.AnswerRelevancyMetric');
    const scored = body.results.span_metrics.filter((r: { metric_name: string }) => r.metric_name === 'deepeval.AnswerRelevancyMetric');
    expect(body.metrics).toContain('deepeval.AnswerRelevancyMetric');
    expect(deepeval.length + scored.length).toBeGreaterThan(0);
    for (const f of deepeval) expect(f.error_message.length).toBeGreaterThan(0);
  });

  it('a batch of one app: app_name keeps the sessions of that app or service', async () => {
    const window = { start: '2025-01-01T00:00:00Z', end: '2025-12-31T00:00:00Z' };
    const ask = async (app_name: string) =>
      (await postJson(`${server.url}/compute_metrics`, { metrics: ['Cycles'], data_fetching_infos: { batch_config: { time_range: window, app_name } } })).body.results.session_metrics.map((r: { session_id: string[] }) => r.session_id[0]);
    expect(await ask('multi-agent-service')).toEqual(['multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606']);
    expect(await ask('no-such-app')).toEqual([]);
  });

  it('neither session ids nor a batch criterion is a 400 (test_invalid_request_returns_400, test_invalid_data_fetching_config)', async () => {
    for (const metrics of [['AgentToAgentInteractions'], ['Test']]) {
      const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics, data_fetching_infos: { session_ids: [], batch_config: {} } });
      expect([status, body]).toEqual([400, { detail: 'Invalid request configuration.' }]);
    }
  });

  it('both session ids and a batch is a 400 (the exclusive or of DataFetchingConfig.validate)', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { data_fetching_infos: { session_ids: [SESSION], batch_config: { num_sessions: 2 } } });
    expect([status, body]).toEqual([400, { detail: 'Invalid request configuration.' }]);
  });

  it('a field of the wrong type is a 422 naming it, as FastAPI answers', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: 'Cycles', data_fetching_infos: { session_ids: [SESSION] } });
    expect(status).toBe(422);
    expect(body.detail[0].loc).toEqual(['body', 'metrics']);
    const time = await postJson(`${server.url}/compute_metrics`, { data_fetching_infos: { batch_config: { time_range: { start: 'last tuesday', end: '2025-08-06T00:00:00Z' } } } });
    expect([time.status, time.body.detail]).toEqual([422, [{ loc: ['body', 'data_fetching_infos', 'batch_config', 'time_range', 'start'], msg: 'must be an ISO 8601 time (2025-06-25T15:04:05Z)', type: 'custom' }]]);
  });

  it('an unknown metric is a failed metric, the request still 200 (test_with_invalid_metric_name, test_includes_failed_metrics)', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['NonExistentMetric'], data_fetching_infos: { session_ids: [SESSION], batch_config: {} } });
    expect(status).toBe(200);
    expect(body.metrics).toEqual([]);
    expect(body.results.failed_metrics).toEqual([
      { metric_name: 'NonExistentMetric', aggregation_level: 'unknown', session_id: [], span_id: [], app_name: [], error_message: 'Metric NonExistentMetric could not be resolved: no native, plugin or adapter metric has this name', metadata: {} },
    ]);
  });

  it('a ragas name mce has no metric for names the provider package', async () => {
    const { body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['ragas.TopicAdherenceScore.f1'], data_fetching_infos: { session_ids: [SESSION] } });
    expect(body.results.failed_metrics[0].metric_name).toBe('ragas.TopicAdherenceScore.f1');
    expect(body.results.failed_metrics[0].error_message).toContain('@mce/provider-ragas');
  });

  it('an adapter metric whose provider package is not installed is a failed metric naming the package', async () => {
    // Provider discovery off: this client has only the built-in metrics, as an install without @mce/provider-deepeval.
    const bare = await MCEClient.open({ config: { ...defaultMceConfig(), discoverProviders: false }, store: client.store, cache: false });
    const served = await serveLegacy(bare);
    try {
      const { status, body } = await postJson(`${served.url}/compute_metrics`, { metrics: ['deepeval.AnswerRelevancyMetric', 'opik.Hallucination'], data_fetching_infos: { session_ids: [SESSION] } });
      expect(status).toBe(200);
      expect(body.metrics).toEqual([]);
      expect(body.results.failed_metrics.map((f: { metric_name: string; error_message: string }) => [f.metric_name, f.error_message])).toEqual([
        ['deepeval.AnswerRelevancyMetric', 'Metric deepeval.AnswerRelevancyMetric could not be resolved (deepeval:AnswerRelevancy is computed by @mce/provider-deepeval, which is not installed: npm install @mce/provider-deepeval)'],
        ['opik.Hallucination', 'Metric opik.Hallucination could not be resolved (opik:Hallucination is computed by @mce/provider-opik, which is not installed: npm install @mce/provider-opik)'],
      ]);
    } finally {
      await served.close();
      await bare.close();
    }
  });

  it('computation levels session and agent (test_with_computation_levels), Cycles under its old name', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, {
      metrics: ['Cycles', 'AgentToAgentInteractions'],
      data_fetching_infos: { session_ids: ['multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606'], batch_config: {} },
      metric_options: { computation_level: ['session', 'agent'] },
    });
    expect(status).toBe(200);
    expect(body.metrics).toEqual(['Cycles', 'AgentToAgentInteractions']);
    const cycles = body.results.session_metrics.find((r: { metric_name: string }) => r.metric_name === 'Cycles');
    expect(cycles).toMatchObject({ value: 0, unit: 'cycles', aggregation_level: 'session' });
    expect(body.results.agent_metrics.map((r: { agent_id: string }) => r.agent_id)).toEqual(['supervisor', 'research', 'supervisor']);
    for (const r of body.results.agent_metrics) expectLegacyResult(r);
    const a2a = body.results.session_metrics.find((r: { metric_name: string }) => r.metric_name === 'AgentToAgentInteractions');
    // AgentToAgentInteractions is a session metric: no agent result of it.
    expect(body.results.agent_metrics.map((r: { metric_name: string }) => r.metric_name)).toEqual(['Cycles', 'Cycles', 'Cycles']);
    expect(a2a.value).toEqual({ 'supervisor -> research': 1, 'research -> supervisor': 1 });
    expect(a2a.metadata.all_transitions).toEqual(['supervisor -> research', 'research -> supervisor']);
  });

  it('a metric asked twice, or under both its names, is computed once', async () => {
    const { body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['Cycles', 'CyclesCount', 'Cycles'], data_fetching_infos: { session_ids: [SESSION] } });
    expect(body.metrics).toEqual(['Cycles', 'CyclesCount']);
    expect(body.results.session_metrics.map((r: { metric_name: string }) => r.metric_name)).toEqual(['Cycles']);
  });

  it('ToolErrorRate at the agent level counts that agent call\'s tool calls only', async () => {
    const { body } = await postJson(`${server.url}/compute_metrics`, {
      metrics: ['ToolErrorRate'],
      data_fetching_infos: { session_ids: ['multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606'] },
      metric_options: { computation_level: ['agent'] },
    });
    expect(body.results.session_metrics).toEqual([]);
    expect(body.results.agent_metrics.map((r: { agent_id: string; value: number; metadata: { total_tool_calls: number; all_tool_span_ids: string[] } }) => [r.agent_id, r.value, r.metadata.total_tool_calls, r.metadata.all_tool_span_ids.length])).toEqual([
      ['supervisor', 0, 0, 0],
      ['research', 0, 1, 1],
      ['supervisor', 0, 0, 0],
    ]);
  });

  it('GraphDeterminismScore over a batch of two sessions, and a failed metric (not -1) with one', async () => {
    const batch = { metrics: ['GraphDeterminismScore'], data_fetching_infos: { batch_config: { time_range: { start: '2025-01-01T00:00:00Z', end: '2025-12-31T00:00:00Z' } } } };
    const two = await postJson(`${server.url}/compute_metrics`, batch);
    expect(two.body.results.population_metrics).toHaveLength(1);
    const score = two.body.results.population_metrics[0];
    expectLegacyResult(score);
    // moderator: no tool, the same agent thrice → edge {moderator-agent -> moderator-agent}; supervisor: supervisor ->
    // research -> tavily_search_results_json -> supervisor (3 edges). Symmetric difference 1 + 3 = 4.
    expect(score).toMatchObject({ metric_name: 'GraphDeterminismScore', value: 4, aggregation_level: 'population', unit: 'average_edit_distance' });
    const one = await postJson(`${server.url}/compute_metrics`, { metrics: ['GraphDeterminismScore'], data_fetching_infos: { session_ids: [SESSION] } });
    expect(one.body.results.population_metrics).toEqual([]);
    expect(one.body.results.failed_metrics[0]).toMatchObject({ metric_name: 'GraphDeterminismScore', aggregation_level: 'population', session_id: [SESSION] });
  });

  it('include_unmatched_spans lists what was skipped; reorg_by_entity groups by session', async () => {
    const { body } = await postJson(`${server.url}/compute_metrics`, {
      metrics: ['WorkflowEfficiency', 'ToolErrorRate'],
      data_fetching_infos: { session_ids: [SESSION] },
      metric_options: { include_unmatched_spans: true, reorg_by_entity: true },
    });
    // No transition between agents in the moderator session: WorkflowEfficiency does not apply, and says so.
    const [group] = body.results.session_metrics;
    expect(group.session_id).toBe(SESSION);
    expect(group.evaluated_metrics.map((r: { metric_name: string }) => r.metric_name)).toEqual(['ToolErrorRate']);
    expect(group.skipped_metrics).toEqual([expect.objectContaining({ metric_name: 'WorkflowEfficiency', entity_type: 'session', skip_category: 'requirement_not_met', session_id: SESSION })]);
    expect(body.results.population_metrics).toEqual([]);
  });

  it('reorg_by_entity at the agent level: one group per agent call, and the population group', async () => {
    const { body } = await postJson(`${server.url}/compute_metrics`, {
      metrics: ['Cycles', 'GraphDeterminismScore', 'NonExistentMetric'],
      data_fetching_infos: { batch_config: { time_range: { start: '2025-01-01T00:00:00Z', end: '2025-12-31T00:00:00Z' } } },
      metric_options: { computation_level: ['agent'], reorg_by_entity: true },
    });
    const agents = body.results.agent_metrics as Array<{ agent_id: string; session_id: string; evaluated_metrics: Array<{ metric_name: string; span_id: string[] }> }>;
    expect(agents.map((g) => g.agent_id).sort()).toEqual(['moderator-agent', 'moderator-agent', 'moderator-agent', 'research', 'supervisor', 'supervisor']);
    for (const g of agents) expect(g.evaluated_metrics.map((r) => r.metric_name)).toEqual(['Cycles']);
    expect(new Set(agents.map((g) => g.evaluated_metrics[0]!.span_id[0])).size).toBe(6);
    expect(body.results.population_metrics).toEqual([expect.objectContaining({ population_id: 'all', evaluated_metrics: [expect.objectContaining({ metric_name: 'GraphDeterminismScore', value: 4 })] })]);
    // A name that resolved to nothing belongs to no entity: it stays in the top-level failed_metrics.
    expect(body.results.failed_metrics.map((f: { metric_name: string }) => f.metric_name)).toEqual(['NonExistentMetric']);
  });

  it('a session the store does not have is reported, not dropped silently (test_handles_not_found_sessions)', async () => {
    const { status, body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['AgentToAgentInteractions'], data_fetching_infos: { session_ids: [SESSION, 'session-not-found'], batch_config: {} } });
    expect(status).toBe(200);
    expect(body.results.session_metrics).toHaveLength(1);
    expect(body.results.failed_metrics).toEqual([expect.objectContaining({ metric_name: 'ALL', session_id: ['session-not-found'], error_message: 'session session-not-found was not found in the store' })]);
  });

  it('write_to_db stores the results in the configured store', async () => {
    const { body } = await postJson(`${server.url}/compute_metrics`, { metrics: ['ToolErrorRate'], data_fetching_infos: { session_ids: [SESSION] }, metric_options: { write_to_db: true } });
    expect(body.results.session_metrics[0].value).toBe(0);
    const stored = await client.getMetrics(SESSION, { metricIds: ['ToolErrorRate'], computeMissing: false });
    expect(stored.map((r) => [r.name, r.result])).toEqual([['ToolErrorRate', 0]]);
  });
});
