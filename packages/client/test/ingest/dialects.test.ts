/** Targeted dialect and normalisation rules, each on a few hand-written spans. */
import { describe, expect, it } from 'vitest';
import { normaliseSession, WarningSink, type SpanRecord } from '../../src/ingest/index.js';

const T = 'c0ffee00c0ffee00c0ffee00c0ffee00';
let clock = 0;
function span(id: string, attrs: Record<string, unknown>, extra: Partial<SpanRecord> = {}): SpanRecord {
  clock += 10;
  return {
    traceId: T,
    spanId: id.padStart(16, '0'),
    name: String(attrs.name ?? id),
    kind: 'internal',
    startTime: 1000 + clock,
    endTime: 1000 + clock + 5,
    status: { code: 'unset' },
    attributes: attrs,
    resource: { 'service.name': 'svc' },
    events: [],
    ...extra,
    ...(extra.parentSpanId ? { parentSpanId: extra.parentSpanId.padStart(16, '0') } : {}),
  };
}
const normalise = (spans: SpanRecord[]) => {
  const warnings = new WarningSink();
  const s = normaliseSession('s', spans, { warnings });
  expect(warnings.list).toEqual([]);
  return s;
};

describe('dialect details', () => {
  it('legacy message events: gen_ai.*.message and gen_ai.choice', () => {
    const s = normalise([
      span('1', { 'llm.request.type': 'chat', 'gen_ai.system': 'openai' }, {
        events: [
          { name: 'gen_ai.system.message', time: 1, attributes: { content: 'Be brief.' } },
          { name: 'gen_ai.user.message', time: 1, attributes: { content: 'Hi?' } },
          { name: 'gen_ai.choice', time: 2, attributes: { message: '{"role":"assistant","content":"Hello."}', finish_reason: 'stop' } },
        ],
      }),
    ]);
    expect(s.llmCalls[0]!.inputMessages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi?' },
    ]);
    expect(s.llmCalls[0]!.outputMessages).toEqual([{ role: 'assistant', content: 'Hello.' }]);
    expect(s.finalResponse).toBe('Hello.');
  });

  it('an LLM span inside an LLM span is one call (tokens once); the inner one fills what the outer lacks', () => {
    const s = normalise([
      span('1', { name: 'ChatOpenAI.chat', 'llm.request.type': 'chat', 'gen_ai.request.model': 'gpt-4o' }),
      span('2', { name: 'openai.chat', 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 7, 'gen_ai.provider.name': 'openai', 'gen_ai.output.messages': '[{"role":"assistant","content":"ok"}]' }, { parentSpanId: '1', status: { code: 'error', message: 'rate limited' } }),
    ]);
    expect(s.llmCalls).toHaveLength(1);
    expect(s.llmCalls[0]).toMatchObject({ id: '0000000000000001', requestModel: 'gpt-4o', provider: 'openai', status: 'error', error: { message: 'rate limited' } });
    expect(s.llmCalls[0]!.usage).toMatchObject({ inputTokens: 100, outputTokens: 7, totalTokens: 107 });
    expect(s.llmCalls[0]!.outputMessages).toEqual([{ role: 'assistant', content: 'ok' }]);
  });

  it('MCP client and server spans of one tools/call are one ToolCall; the server span names the server', () => {
    const s = normalise([
      span('1', { name: 'tools/call get_weather', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.arguments': '{"city":"Oslo"}' }, { kind: 'client' }),
      span('2', { name: 'tools/call get_weather', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'error.type': 'tool_error' }, { kind: 'server', parentSpanId: '1', resource: { 'service.name': 'weather-mcp' } }),
    ]);
    expect(s.toolCalls).toHaveLength(1);
    expect(s.toolCalls[0]).toMatchObject({
      id: '0000000000000001',
      toolName: 'get_weather',
      arguments: { city: 'Oslo' },
      status: 'error',
      error: { type: 'tool_error' },
      mcp: { server: 'weather-mcp', kind: 'tool', method: 'tools/call' },
    });
    expect(s.mcpServers).toEqual([{ name: 'weather-mcp', tools: [{ name: 'get_weather' }], resources: [], prompts: [] }]);
  });

  it('MCP listings, resources/read and prompts/get build the server inventory', () => {
    const listed = { tools: [{ name: 'search', description: 'Search docs', inputSchema: { type: 'object' } }] };
    const s = normalise([
      span('1', { name: 'tools/list', 'mcp.method.name': 'tools/list', 'mcp.server.name': 'docs', 'network.transport': 'pipe', 'output.value': JSON.stringify(listed) }),
      span('2', { name: 'resources/list', 'mcp.method.name': 'resources/list', 'mcp.server.name': 'docs', 'output.value': JSON.stringify({ result: { resources: [{ uri: 'docs://a', name: 'A', mimeType: 'text/plain' }] } }) }),
      span('3', { name: 'prompts/list', 'mcp.method.name': 'prompts/list', 'mcp.server.name': 'docs', 'output.value': JSON.stringify({ prompts: [{ name: 'summarise', arguments: [{ name: 'topic', required: true }] }] }) }),
      span('4', { name: 'resources/read docs://b', 'mcp.method.name': 'resources/read', 'mcp.server.name': 'docs', 'mcp.resource.uri': 'docs://b' }),
      span('5', { name: 'prompts/get summarise', 'mcp.method.name': 'prompts/get', 'mcp.server.name': 'docs', 'gen_ai.prompt.name': 'summarise' }),
      span('6', { name: 'tools/call search', 'mcp.method.name': 'tools/call', 'mcp.server.name': 'docs', 'gen_ai.tool.name': 'search' }),
    ]);
    expect(s.toolCalls.map((t) => [t.toolName, t.mcp])).toEqual([
      ['docs://b', { kind: 'resource', method: 'resources/read', server: 'docs', uri: 'docs://b' }],
      ['summarise', { kind: 'prompt', method: 'prompts/get', server: 'docs' }],
      ['search', { kind: 'tool', method: 'tools/call', server: 'docs' }],
    ]);
    expect(s.toolCalls[2]!.definition).toEqual({ name: 'search', description: 'Search docs', inputSchema: { type: 'object' } });
    expect(s.mcpServers).toEqual([
      {
        name: 'docs',
        transport: 'pipe',
        tools: [{ name: 'search', description: 'Search docs', inputSchema: { type: 'object' } }],
        resources: [{ uri: 'docs://a', name: 'A', mimeType: 'text/plain' }, { uri: 'docs://b' }],
        prompts: [{ name: 'summarise', arguments: [{ name: 'topic', required: true }] }],
      },
    ]);
  });

  it('OpenInference: a root CHAIN running agents is the MAS call; a nested CHAIN is a task', () => {
    const s = normalise([
      span('1', { name: 'crew', 'openinference.span.kind': 'CHAIN' }),
      span('2', { name: 'writer', 'openinference.span.kind': 'AGENT', 'agent.name': 'writer' }, { parentSpanId: '1' }),
      span('3', { name: 'draft', 'openinference.span.kind': 'CHAIN' }, { parentSpanId: '2' }),
    ]);
    expect(s.masCalls.map((m) => m.id)).toEqual(['0000000000000001']);
    expect(s.agentCalls[0]).toMatchObject({ agentName: 'writer', masCallId: '0000000000000001', parentId: '0000000000000001' });
    expect(s.taskCalls[0]).toMatchObject({ taskName: 'draft', agentCallId: '0000000000000002' });
  });

  it('Vercel ai.prompt with system + prompt', () => {
    const s = normalise([
      span('1', { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.prompt': '{"system":"Be terse.","prompt":"2+2?"}', 'ai.response.text': '4', 'ai.usage.promptTokens': 9, 'ai.usage.completionTokens': 1 }),
    ]);
    expect(s.llmCalls[0]!.inputMessages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: '2+2?' },
    ]);
    expect(s.llmCalls[0]!.outputMessages).toEqual([{ role: 'assistant', content: '4' }]);
    expect(s.finalResponse).toBe('4');
  });

  it('agent attribution by name when agent spans are not ancestors and there is no checkpoint namespace', () => {
    const s = normalise([
      span('1', { name: 'planner.agent', 'ioa_observe.span.kind': 'agent', agent_id: 'planner' }, { endTime: 5000 }),
      span('2', { name: 'ChatOpenAI.chat', 'llm.request.type': 'chat', 'ioa_observe.workflow.name': 'planner' }),
      span('3', { name: 'ChatOpenAI.chat', 'llm.request.type': 'chat', 'ioa_observe.workflow.name': 'someone_else' }),
    ]);
    expect(s.llmCalls.map((c) => c.agentCallId)).toEqual(['0000000000000001', undefined]);
  });

  it('create_agent is set-up work (a task); invoke_agent names come from gen_ai.agent.name or the span name', () => {
    const s = normalise([
      span('1', { name: 'create_agent helper', 'gen_ai.operation.name': 'create_agent' }),
      span('2', { name: 'invoke_agent helper', 'gen_ai.operation.name': 'invoke_agent' }),
    ]);
    expect(s.taskCalls.map((t) => t.taskName)).toEqual(['create_agent helper']);
    expect(s.agentCalls.map((a) => a.agentName)).toEqual(['helper']);
  });
});

describe('attribution by gen_ai.agent.name', () => {
  it('an LLM span outside the agent span but naming it is attributed to it', () => {
    const s = normalise([
      span('a1', { name: 'invoke_agent coder', 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder' }, { endTime: 9000 }),
      span('a2', { name: 'chat', 'gen_ai.operation.name': 'chat', 'gen_ai.agent.name': 'coder' }),
    ]);
    expect(s.llmCalls[0]!.agentCallId).toBe(s.agentCalls[0]!.id);
  });
});

describe('big sessions', () => {
  it('a session of 200,000 spans normalises (no argument-count limits)', () => {
    const spans: SpanRecord[] = [];
    for (let i = 0; i < 200_000; i++) {
      spans.push({
        traceId: T,
        spanId: (0x100000 + i).toString(16).padStart(16, '0'),
        name: 'execute_tool t',
        kind: 'internal',
        startTime: i,
        endTime: i + 1,
        status: { code: 'unset' },
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 't' },
        resource: {},
        events: [],
      });
    }
    const s = normaliseSession('big', spans, { warnings: new WarningSink() });
    expect(s.toolCalls).toHaveLength(200_000);
    expect([s.startTime, s.endTime]).toEqual([0, 200_000]);
    expect(s.masCalls).toHaveLength(1);
  });
});
