/**
 * The real trace files of fixtures/real-world (README: where each comes from), read as found. The counts,
 * tokens and times below were checked against the raw files with a separate Python script (span kinds, the usage
 * attributes each format writes, first start and last end). Where a count depends on a framework convention rather
 * than on the reader (which agent owns a Microsoft Agent Framework LLM span that is a sibling of `invoke_agent`), the
 * test asserts what the reader delivers and leaves that count out, saying so.
 */
import { describe, expect, it } from 'vitest';
import { detectFormat, readSessions, readSpans } from '../src/index.js';
import { fixture, summarise } from './helpers.js';

const file = (name: string) => fixture(`real-world/${name}`);

const one = async (name: string) => {
  const r = await readSessions(file(name));
  expect(r.sessions).toHaveLength(1);
  return { session: r.sessions[0]!, warnings: r.warnings };
};

describe('any-agent AgentTrace JSON (decimal integer ids)', () => {
  const runs = [
    ['AGNO', '1de0532b350588ff152b1edf6bf358b3', 3, 2, 1396, 74, 4880.778],
    ['LANGCHAIN', '572318454595034fe5076610d6400542', 4, 2, 1262, 125, 1792.938],
    ['OPENAI', '4bedea77bb33b9c5f280371eae21ea97', 3, 2, 1020, 76, 1227.25],
    ['SMOLAGENTS', '9135313a4e40fe254d48742d230ea040', 3, 3, 2294, 87, 1158.388],
  ] as const;
  for (const [framework, traceId, llm, tools, input, output, ms] of runs) {
    it(`${framework}: one agent run, ${llm} LLM calls, ${tools} tools, ${input}/${output} tokens`, async () => {
      const name = `any-agent_${framework}_trace.json`;
      expect(await detectFormat(file(name))).toBe('any-agent');
      const { session, warnings } = await one(name);
      expect(warnings).toEqual([]);
      // The 128-bit decimal id, every digit kept (a JS number would have rounded it).
      expect(session.id).toBe(traceId);
      const s = summarise(session);
      expect(s.counts).toEqual({ MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: llm, ToolCall: tools });
      expect(s.tokens).toEqual({ input, output, cacheRead: 0, total: input + output });
      expect(session.llmCalls.every((c) => c.requestModel === 'mistral/mistral-small-latest')).toBe(true);
      expect(session.endTime - session.startTime).toBeCloseTo(ms, 3);
    });
  }

  it('the span ids are the decimal ids in hex, parents included', async () => {
    const { spans } = await readSpans(file('any-agent_OPENAI_trace.json'));
    const agent = spans.find((s) => s.name === 'invoke_agent [any_agent]')!;
    expect(agent.spanId).toBe('ab08afea3548c547');
    // The first LLM call's parent, 12324293800750531911 in the file.
    expect(spans[0]!.parentSpanId).toBe((12324293800750531911n).toString(16));
    expect(spans[0]!.attributes['gen_ai.usage.input_cost']).toBe(0.0000269);
  });
});

describe('Langfuse trace exports', () => {
  it('google-adk (OTel attributes under metadata.attributes): 1 agent, 2 LLM calls, 1 tool, 67/9 tokens, 1,848 ms', async () => {
    const { session, warnings } = await one('langfuse-export_google-adk-2025-08-28.json');
    expect(warnings).toEqual([]);
    expect(session.id).toBe('demo-session');
    expect(summarise(session)).toMatchObject({
      counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 2, ToolCall: 1 },
      tokens: { input: 67, output: 9, cacheRead: 0, total: 76 },
      agents: ['agent_run [hello_agent]'],
      tools: ['say_hello'],
    });
    expect(session.endTime - session.startTime).toBe(1848);
  });

  it('langgraph-python (no OTel attributes: observation types): 2 generations with usageDetails, 168/66 tokens', async () => {
    const { session } = await one('langfuse-export_langgraph-python-2025-08-22.json');
    expect(session.id).toBe('e1fde3efec57ce8a69bafd3fb928a7eb');
    const s = summarise(session);
    // Its nodes and its tool are SPAN observations: Langfuse's types say nothing more of them.
    expect(s.counts).toEqual({ MASCall: 1, AgentCall: 0, TaskCall: 0, LLMCall: 2, ToolCall: 0 });
    expect(s.tokens).toEqual({ input: 168, output: 66, cacheRead: 0, total: 234 });
    expect(session.llmCalls.map((c) => c.requestModel)).toEqual(['gpt-4o-2024-08-06', 'gpt-4o-2024-08-06']);
    expect(session.endTime - session.startTime).toBe(2610);
  });

  it('agno, crewai, vercel-aisdk: calls and tokens', async () => {
    const agno = summarise((await one('langfuse-export_agno-2025-06-11.json')).session);
    // Two OpenAIChat.invoke generations, each around the client's `chat gpt-4o-mini` generation (663+163 / 225+20).
    expect(agno).toMatchObject({ counts: { AgentCall: 1, LLMCall: 2, ToolCall: 1 }, tokens: { input: 826, output: 245 }, tools: ['duckduckgo_search'] });
    const crewai = (await one('langfuse-export_crewai-2025-07-11.json')).session;
    expect(summarise(crewai)).toMatchObject({ counts: { LLMCall: 1, ToolCall: 0 }, tokens: { input: 190, output: 164, total: 354 } });
    const vercel = summarise((await one('langfuse-export_vercel-aisdk-2025-11-17.json')).session);
    expect(vercel).toMatchObject({ counts: { LLMCall: 1, ToolCall: 1 }, tokens: { input: 62, output: 85 }, tools: ['getWeather'] });
  });

  it('the cost Langfuse computed stays on the span', async () => {
    const { spans } = await readSpans(file('langfuse-export_google-adk-2025-08-28.json'));
    const llm = spans.find((s) => s.spanId === 'bded677884f031ce')!;
    expect([llm.attributes['gen_ai.usage.input_cost'], llm.attributes['gen_ai.usage.output_cost'], llm.attributes['gen_ai.usage.cost']]).toEqual([3.9e-6, 2.4e-6, 6.3e-6]);
    expect(llm.parentSpanId).toBe('6d8beb2e6a36b133');
    expect([llm.startTime, llm.endTime]).toEqual([Date.parse('2025-08-28T07:32:31.222Z'), Date.parse('2025-08-28T07:32:32.146Z')]);
  });
});

describe('Jaeger JSON', () => {
  it('traces.jaeger.json: 10 traces of one service, 11 spans (one listed twice), no LLM call the dialects know', async () => {
    expect(await detectFormat(file('day23-lab_traces.jaeger.json'))).toBe('jaeger');
    const { spans } = await readSpans(file('day23-lab_traces.jaeger.json'));
    expect(spans).toHaveLength(11);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(10);
    const generate = spans.find((s) => s.name === 'generate-tokens')!;
    expect(generate).toMatchObject({
      traceId: 'ea787ddc808fb1a015f454b9912c8916',
      spanId: '102a4c89a17d1fdb',
      kind: 'internal',
      scope: 'instrumentation',
      startTime: 1782706642676.687,
      attributes: { 'gen_ai.response.finish_reason': 'stop', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 14 },
      resource: { 'service.name': 'inference-api', 'deployment.environment': 'lab' },
    });
    expect(generate.endTime - generate.startTime).toBeCloseTo(230.892, 3);
    // Usage without a model is no call to any dialect: every trace is said to hold none; the span listed twice is said too.
    const r = await readSessions(file('day23-lab_traces.jaeger.json'));
    expect([r.sessions.length, r.warningCounts]).toEqual([0, { 'no-calls': 10, 'duplicate-span': 1 }]);
  });

  it('single_trace saved as UTF-16 LE with a byte order mark: one trace object, read the same', async () => {
    const { format, spans } = await readSpans(file('day23-lab_single_trace.jaeger-utf16.json'));
    expect(format).toBe('jaeger');
    expect(spans.map((s) => [s.traceId, s.spanId, s.name, s.attributes['gen_ai.request.model']])).toEqual([['8c72645033aa8810f2b2fa49235ca09b', '6a2397aa56faf8d7', 'predict', 'llama3-mock']]);
    expect(spans[0]!.endTime - spans[0]!.startTime).toBeCloseTo(69.34, 3);
  });
});

describe('OpenTelemetry console output', () => {
  it('ms-agent-framework (Python ConsoleSpanExporter, objects back to back): 387 prints, 188 ended spans, 11 runs', async () => {
    const name = 'ms-agent-framework_traces.console.jsonl';
    expect(await detectFormat(file(name))).toBe('otel-console');
    const { spans, warnings } = await readSpans(file(name));
    // 199 spans; the 11 `workflow.run` roots were printed only at their start (the output ends before they do).
    expect(spans).toHaveLength(188);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(188);
    expect(warnings.map((w) => w.message.replace(/0x[0-9a-f]+/, 'ID'))).toEqual(
      Array(11).fill('skipped span ID: printed only at its start (end_time null): it had not ended when the output was written'),
    );
    const r = await readSessions(file(name));
    expect(r.sessions).toHaveLength(11);
    for (const s of r.sessions) {
      const sum = summarise(s);
      expect(sum.agents).toEqual(['Weather agent', 'Structured output agent']);
      expect(sum.tools).toEqual(['get_weather']);
      // Which agent owns the LLM and tool spans (siblings of invoke_agent under executor.process) is the framework
      // convention's to say (gen_ai.agent.*), not the reader's: llmAgents / toolAgents are not asserted here.
    }
    expect(r.sessions.map((s) => s.llmCalls.length)).toEqual([3, 3, 3, 3, 3, 4, 3, 3, 3, 3, 3]);
    expect(r.sessions.reduce((n, s) => n + summarise(s).tokens.input, 0)).toBe(7309);
    expect(r.sessions.reduce((n, s) => n + summarise(s).tokens.output, 0)).toBe(2410);
  });

  it('the ended print of a span is the one read; the attributes of the end (usage) are there', async () => {
    const { spans } = await readSpans(file('ms-agent-framework_traces.console.jsonl'));
    // Printed first at its start, without usage (end_time null), then at its end.
    const chat = spans.find((s) => s.spanId === '8fafb95a2fed93ac')!;
    expect(chat).toMatchObject({
      traceId: '4ae695eb4bb65a49273c6751bfa1fea4',
      kind: 'internal',
      attributes: { 'gen_ai.usage.input_tokens': 145, 'gen_ai.usage.output_tokens': 51, 'gen_ai.response.model': 'accounts/fireworks/models/gpt-oss-20b' },
    });
    expect(spans.filter((s) => s.spanId === '8fafb95a2fed93ac')).toHaveLength(1);
  });

  it('openinference-mastra (JS ReadableSpan, hrtime [s, ns], no span ids in the dump): 21 spans of one trace, 2 LLM calls', async () => {
    const name = 'openinference-mastra_weatherAgentSpans.readablespan.json';
    const { format, spans } = await readSpans(file(name));
    expect(format).toBe('otel-console');
    expect(spans).toHaveLength(21);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spans[0]!).toMatchObject({ spanId: '0000000000000001', parentSpanId: '4b67da60e06e2e95', startTime: 1747754793723, endTime: 1747754793723.0942 });
    const { session } = await one(name);
    expect(summarise(session)).toMatchObject({ counts: { LLMCall: 2, ToolCall: 1 }, tokens: { input: 425, output: 79 }, tools: ['weatherTool'] });
    expect(session.endTime - session.startTime).toBeCloseTo(3480.6545, 3);
  });
});

describe('Phoenix span JSON, bare OTLP span, OTLP collector export', () => {
  it('phoenix pxi turn: 1 agent, 9 LLM calls (310,222 in, 1,895 out, 305,482 cache reads), 8 tools, one failed', async () => {
    expect(await detectFormat(file('phoenix_pxi_turn_trace.phoenix-spans.json'))).toBe('phoenix');
    const { session, warnings } = await one('phoenix_pxi_turn_trace.phoenix-spans.json');
    expect(warnings).toEqual([]);
    expect(session.id).toBe('fixture-session');
    expect(summarise(session)).toMatchObject({
      counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 9, ToolCall: 8 },
      tokens: { input: 310222, output: 1895, cacheRead: 305482 },
      tools: ['list_datasets', 'list_datasets', 'ask_user', 'create_dataset', 'add_spans_to_dataset', 'bash', 'add_spans_to_dataset', 'get_route_info'],
      errors: ['add_spans_to_dataset'],
    });
    // Sanitised opaque ids are kept as written.
    expect(session.traceIds).toEqual(['fixture-trace-1']);
    expect(session.endTime - session.startTime).toBe(35_000);
  });

  it('envoy ai-gateway chat-tools (one bare Span, ids and times cleared): the LLM call, 162/287 tokens; the missing times said', async () => {
    expect(await detectFormat(file('envoy-aigw_chat-tools.span.json'))).toBe('otlp-span');
    const { session, warnings } = await one('envoy-aigw_chat-tools.span.json');
    expect(summarise(session)).toMatchObject({ counts: { LLMCall: 1 }, tokens: { input: 162, output: 287, total: 449 } });
    expect(session.llmCalls[0]!.requestModel).toBe('gpt-5-nano');
    expect(warnings.map((w) => w.code)).toEqual(['no-times']);
    // The id is made from the content: the same file read again is the same session (the store merges, not doubles).
    expect((await one('envoy-aigw_chat-tools.span.json')).session.id).toBe(session.id);
  });

  it('nlp-crop-calendar (collector file export, not an LLM app): its spans read, no call', async () => {
    const { format, spans } = await readSpans(file('nlp-crop-calendar_otel-traces.otlp.json'));
    expect(format).toBe('otlp-json');
    expect(spans.map((s) => s.name)).toEqual(['tool.memory_clear', 'manual.verify']);
    const r = await readSessions(file('nlp-crop-calendar_otel-traces.otlp.json'));
    expect([r.sessions.length, r.warningCounts]).toEqual([0, { 'no-calls': 1 }]);
  });
});
