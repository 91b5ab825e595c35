/**
 * Framework conventions, each on a real trace re-packed as OTLP/JSON or one reconstructed from the framework's own
 * code or tests (fixtures/frameworks/README.md says which, with provenance).
 */
import { describe, expect, it } from 'vitest';
import type { LLMCall, MetricContext, Session } from '@mce/core';
import { isSkip } from '@mce/core';
import { Cost } from '@mce/provider-native';
import { readSessions } from '../src/index.js';
import { fixture, summarise } from './helpers.js';

async function sessionsOf(name: string): Promise<Session[]> {
  return (await readSessions([fixture(`frameworks/${name}`)], {})).sessions;
}
async function only(name: string): Promise<Session> {
  const sessions = await sessionsOf(name);
  expect(sessions).toHaveLength(1);
  return sessions[0]!;
}

const context = (session: Session, level: 'Session' | 'LLMCall'): MetricContext => ({
  session,
  level,
  options: {},
  results: { get: () => undefined, all: () => [] },
});

async function cost(session: Session, element: Session | LLMCall, level: 'Session' | 'LLMCall') {
  const [outcome] = await Cost.computeBatch([element], context(session, level));
  if (outcome instanceof Error || outcome === undefined || isSkip(outcome)) throw new Error(`no Cost: ${String(outcome)}`);
  return outcome;
}

describe('Microsoft Agent Framework workflow (console dump of Josh-Weston/microsoft-agent-framework-samples)', () => {
  it('11 runs of 2 agents; the LLM and tool spans beside invoke_agent under the executor belong to that agent', async () => {
    const sessions = await sessionsOf('ms-agent-framework.otlp.json');
    expect(sessions).toHaveLength(11);
    for (const s of sessions) {
      const llmCalls = s.id === '5573da5d05a1692cfeef0c212a2ebbc3' ? 4 : 3;
      expect(summarise(s).counts, s.id).toEqual({ MASCall: 1, AgentCall: 2, TaskCall: 0, LLMCall: llmCalls, ToolCall: 1 });
      expect(s.agentCalls.map((a) => a.agentName)).toEqual(['Weather agent', 'Structured output agent']);
      // Every call has its agent, though its parent span is `executor.process …`, not `invoke_agent …`.
      expect([...s.llmCalls, ...s.toolCalls].every((c) => c.agentCallId !== undefined)).toBe(true);
    }
    const first = sessions.find((s) => s.id === '4ae695eb4bb65a49273c6751bfa1fea4')!;
    // The workflow.run span is the MAS call (its end: its last descendant's, as the dump printed none).
    expect(first.masCalls.map((m) => [m.id, m.name, m.workflowName])).toEqual([
      ['568cf6638288c5ee', 'workflow.run', 'WorkflowBuilder-05e06cc0-5eec-47f8-81de-da15ad8a3d4f'],
    ]);
    expect([...first.agentCalls, ...first.llmCalls, ...first.toolCalls].every((c) => c.masCallId === '568cf6638288c5ee')).toBe(true);
    const facts = summarise(first);
    expect(facts.llmAgents).toEqual(['Weather agent', 'Weather agent', 'Structured output agent']);
    expect(facts.toolAgents).toEqual(['Weather agent']);
    expect(facts.tools).toEqual(['get_weather']);
    expect(facts.tokens).toMatchObject({ input: 635, output: 176 });
    expect(first.toolCalls[0]!.toolCallId).toBe('call_aqzxlDKuD2zwZGDD1WsgggZJ');
    const totals = sessions.reduce((t, s) => ({ input: t.input + summarise(s).tokens.input, output: t.output + summarise(s).tokens.output }), { input: 0, output: 0 });
    expect(totals).toEqual({ input: 7309, output: 2410 });
  });

  it('prices accounts/fireworks/models/gpt-oss-20b at the Fireworks price (genai-prices), not like gpt-4o', async () => {
    const sessions = await sessionsOf('ms-agent-framework.otlp.json');
    const first = sessions.find((s) => s.id === '4ae695eb4bb65a49273c6751bfa1fea4')!;
    const r = await cost(first, first, 'Session');
    // 635 input tokens at 0.07 USD/M + 176 output tokens at 0.30 USD/M (gpt-4o: 0.0033475).
    expect(r.value).toBeCloseTo(635 * 7e-8 + 176 * 3e-7, 15);
    const model = (r.details as { models: Record<string, { source: string; priceKey: string; fallback: boolean }> }).models['accounts/fireworks/models/gpt-oss-20b'];
    expect(model).toMatchObject({ source: 'genai-prices', priceKey: 'fireworks/gpt-oss-20b', fallback: false });
    let all = 0;
    for (const s of sessions) all += (await cost(s, s, 'Session')).value;
    expect(all).toBeCloseTo(7309 * 7e-8 + 2410 * 3e-7, 15);
  });
});

describe('any-agent (mozilla-ai/any-agent tests/assets/OPENAI_trace.json)', () => {
  it('call_llm spans are LLM calls; mistral/mistral-small-latest at list price ≈ the $0.000125 the framework recorded', async () => {
    const s = await only('any-agent-openai.otlp.json');
    expect(summarise(s)).toMatchObject({
      counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 3, ToolCall: 2 },
      tokens: { input: 1020, output: 76 },
      agents: ['any_agent'],
      tools: ['get_current_time', 'write_file'],
      llmAgents: ['any_agent', 'any_agent', 'any_agent'],
    });
    expect(s.toolCalls.map((t) => t.arguments)).toEqual([{ timezone: 'America/New_York' }, { text: '2025' }]);
    // Results and the model's tool requests are in gen_ai.output (gen_ai.output.type json).
    expect(s.toolCalls.map((t) => t.result)).toEqual([{ timezone: 'America/New_York', datetime: '2025-09-16T08:43:13-04:00', is_dst: true }, {}]);
    expect(s.llmCalls[0]!.outputMessages).toEqual([{ role: 'assistant', content: '', toolCalls: [{ name: 'get_current_time', arguments: { timezone: 'America/New_York' } }] }]);
    expect(s.userInput).toMatch(/^Find what year it is in the America\/New_York timezone/);
    const r = await cost(s, s, 'Session');
    expect(r.value).toBeCloseTo(1.248e-4, 15);
    expect(r.value).not.toBeCloseTo(1020 * 2.5e-6 + 76 * 1e-5, 6); // gpt-4o: 0.00331
    const perCall = await cost(s, s.llmCalls[0]!, 'LLMCall');
    expect(perCall.details).toMatchObject({ source: 'genai-prices', priceKey: 'mistral/mistral-small-latest' });
  });
});

describe('pydantic-ai with its default instrumentation (pydantic/pydantic-ai tests/test_logfire.py)', () => {
  for (const file of ['pydantic-ai.otlp.json', 'pydantic-ai-logfire-names.otlp.json']) {
    it(`${file}: the run is the agent, running tool: X is a tool, running 1 tool is not`, async () => {
      const s = await only(file);
      expect(summarise(s)).toEqual({
        counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 2, ToolCall: 1 },
        // The agent run span's own sum (103 / 12) is not counted again.
        tokens: { input: 103, output: 12, cacheRead: 0, total: 115 },
        agents: ['my_agent'],
        transitions: [],
        tools: ['my_ret'],
        llmAgents: ['my_agent', 'my_agent'],
        toolAgents: ['my_agent'],
        errors: [],
      });
      const tool = s.toolCalls[0]!;
      expect(tool).toMatchObject({ arguments: { x: 0 }, result: '1', toolCallId: 'pyd_ai_tool_call_id__my_ret' });
      // The tool's parent is the agent: the `running tools` group in between is no call.
      expect(tool.parentId).toBe(s.agentCalls[0]!.id);
      expect(s.agentCalls[0]!.output).toBe('{"my_ret":"1"}');
    });
  }
});

describe('OpenInference openai-agents (its tracing processor\'s spans)', () => {
  it('the "Agent workflow" root is the MAS call, not an agent', async () => {
    const s = await only('openai-agents-openinference.otlp.json');
    expect(s.masCalls.map((m) => m.name)).toEqual(['Agent workflow']);
    expect(summarise(s)).toMatchObject({
      counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 2, ToolCall: 1 },
      tokens: { input: 664, output: 30, total: 694 },
      agents: ['Weather agent'],
      llmAgents: ['Weather agent', 'Weather agent'],
      toolAgents: ['Weather agent'],
    });
    expect(s.agentCalls[0]!.masCallId).toBe(s.masCalls[0]!.id);
    expect(s.toolCalls[0]).toMatchObject({ toolName: 'get_weather', toolCallId: 'call_w1', arguments: { city: 'Tokyo' } });
  });
});

describe('OpenLLMetry LangGraph (ClickHouse fixture langgraph_single_agent_tool, re-packed)', () => {
  it('invoke_agent LangGraph around LangGraph.workflow is one agent run', async () => {
    const s = await only('langgraph-invoke-agent.otlp.json');
    expect(s.agentCalls.map((a) => [a.name, a.agentName])).toEqual([['invoke_agent LangGraph', 'LangGraph']]);
    expect(summarise(s)).toMatchObject({
      // The graph's nodes are tasks; the LangGraph.workflow span is the agent run seen a second time, not a task.
      counts: { MASCall: 2, AgentCall: 1, TaskCall: 5, LLMCall: 2, ToolCall: 1 },
      tokens: { input: 373, output: 42 },
      llmAgents: ['LangGraph', 'LangGraph'],
    });
    expect(s.taskCalls.map((t) => t.taskName)).not.toContain('LangGraph');
  });

  it('the ioa_observe and LangChain spans of one tool run (same arguments, overlapping times) are one ToolCall', async () => {
    const s = await only('langgraph-ioa-langchain-tool.otlp.json');
    expect(s.toolCalls).toHaveLength(1);
    expect(s.toolCalls[0]).toMatchObject({
      id: '7a1c0de5a11ce001',
      toolName: 'uniform_distribution_number_generation',
      toolCallId: 'call_PDW7UPtDEilm4aNQAGTWSPY9',
      arguments: { lower_bound: 2, upper_bound: 3 },
      result: '2.994778659771288',
    });
    // The LLM call's model is named `gpt-4o-2024-08-06` on the span; LangChain's ls_model_name says gpt-4o.
    expect(s.llmCalls.map((c) => c.responseModel)).toEqual(['gpt-4o-2024-08-06', 'gpt-4o-2024-08-06']);
  });
});
