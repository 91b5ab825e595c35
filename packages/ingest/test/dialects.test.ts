/** Targeted dialect and normalisation rules, each on a few hand-written spans. */
import { describe, expect, it } from 'vitest';
import { normaliseSession, WarningSink, type SpanRecord } from '../src/index.js';

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
    expect(s.llmCalls[0]!.finishReasons).toEqual(['stop']);
  });

  it('legacy message events: an assistant message\'s JSON-encoded tool_calls and a tool message\'s id', () => {
    const call = [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }];
    const s = normalise([
      span('1', { 'llm.request.type': 'chat', 'gen_ai.system': 'openai' }, {
        events: [
          { name: 'gen_ai.user.message', time: 1, attributes: { content: 'Weather in Oslo?' } },
          { name: 'gen_ai.assistant.message', time: 1, attributes: { tool_calls: JSON.stringify(call) } },
          { name: 'gen_ai.tool.message', time: 1, attributes: { id: 'call_1', content: '{"temp":3}' } },
          { name: 'gen_ai.choice', time: 2, attributes: { message: '{"role":"assistant","content":"3 °C."}', finish_reason: 'stop' } },
        ],
      }),
    ]);
    const [, assistant, tool] = s.llmCalls[0]!.inputMessages;
    expect(assistant!.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(tool).toMatchObject({ role: 'tool', toolCallId: 'call_1' });
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

  it('when both LLM spans report usage, the inner one adds the cache and reasoning breakdown and names the provider', () => {
    const s = normalise([
      span('1', {
        name: 'ChatOpenAI.chat', 'llm.request.type': 'chat', 'gen_ai.system': 'Langchain', 'gen_ai.request.model': 'o3-mini',
        'gen_ai.usage.prompt_tokens': 10000, 'gen_ai.usage.completion_tokens': 500, 'gen_ai.usage.cache_read_input_tokens': '0',
      }),
      span('2', {
        name: 'chat o3-mini', 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 10000,
        'gen_ai.usage.output_tokens': 500, 'gen_ai.usage.cache_read.input_tokens': 8000, 'gen_ai.usage.reasoning.output_tokens': 300,
      }, { parentSpanId: '1' }),
    ]);
    expect(s.llmCalls).toHaveLength(1);
    expect(s.llmCalls[0]!.provider).toBe('openai');
    expect(s.llmCalls[0]!.usage).toEqual({ inputTokens: 10000, outputTokens: 500, cacheReadTokens: 8000, cacheWriteTokens: 0, reasoningTokens: 300, totalTokens: 10500 });
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

  it('a three-span tool chain starting at one instant (execute_tool → MCP client → MCP server) is one call with the server\'s error and arguments', () => {
    const at = { startTime: 5000, endTime: 5100 };
    const s = normalise([
      span('1', { name: 'execute_tool read_file', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file' }, at),
      span('2', { name: 'tools/call read_file', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'read_file' }, { ...at, endTime: 5090, kind: 'client', parentSpanId: '1' }),
      span('3', { name: 'tools/call read_file', 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.arguments': '{"path":"a.txt"}' }, {
        ...at,
        endTime: 5080,
        kind: 'server',
        parentSpanId: '2',
        status: { code: 'error', message: 'ENOENT' },
        resource: { 'service.name': 'files-mcp' },
      }),
    ]);
    expect(s.toolCalls).toHaveLength(1);
    expect(s.toolCalls[0]).toMatchObject({ id: '0000000000000001', status: 'error', arguments: { path: 'a.txt' }, mcp: { server: 'files-mcp' } });
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

  it('OpenInference: a CHAIN between the root CHAIN and its agents is a task, not a second MAS call; kinds in any case', () => {
    const s = normalise([
      span('1', { name: 'crew', 'openinference.span.kind': 'CHAIN' }),
      span('2', { name: 'plan', 'openinference.span.kind': 'CHAIN' }, { parentSpanId: '1' }),
      span('3', { name: 'writer', 'openinference.span.kind': 'agent', 'agent.name': 'writer' }, { parentSpanId: '2' }),
      span('4', { name: 'ChatCompletion', 'openinference.span.kind': 'llm', 'llm.model_name': 'gpt-4o' }, { parentSpanId: '3' }),
    ]);
    expect(s.masCalls.map((m) => m.id)).toEqual(['0000000000000001']);
    expect(s.taskCalls.map((t) => [t.id, t.parentId, t.masCallId])).toEqual([['0000000000000002', '0000000000000001', '0000000000000001']]);
    expect(s.agentCalls.map((a) => [a.agentName, a.parentId, a.masCallId])).toEqual([['writer', '0000000000000002', '0000000000000001']]);
    expect(s.llmCalls.map((c) => [c.requestModel, c.agentCallId])).toEqual([['gpt-4o', '0000000000000003']]);
  });

  it('OpenInference: a TOOL span\'s arguments are its input.value, not tool.parameters (the tool\'s JSON schema)', () => {
    const s = normalise([
      span('1', {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'calc',
        'tool.parameters': '{"type":"object","properties":{"expr":{"type":"string"}}}',
        'input.value': '{"expr":"2+2"}',
        'output.value': '4',
      }),
    ]);
    expect(s.toolCalls[0]).toMatchObject({ toolName: 'calc', arguments: { expr: '2+2' }, result: '4' });
  });

  it('a tool span without a call id takes the id of the request with its own arguments, whatever order they started in', () => {
    const s = normalise([
      span('1', {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [
          { type: 'tool_call', id: 'call_A', name: 'get_weather', arguments: { city: 'Lyon' } },
          { type: 'tool_call', id: 'call_B', name: 'get_weather', arguments: { city: 'Paris' } },
        ] }]),
      }),
      span('2', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.arguments': '{"city":"Paris"}' }),
      span('3', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.arguments': '{"city":"Lyon"}' }),
    ]);
    expect(s.llmCalls[0]!.outputMessages[0]!.toolCalls?.map((c) => c.id)).toEqual(['call_A', 'call_B']);
    expect(s.toolCalls.map((t) => [(t.arguments as { city: string }).city, t.toolCallId])).toEqual([['Paris', 'call_B'], ['Lyon', 'call_A']]);
  });

  it('an agent span that also carries a model and usage stays an agent: its own instrumentation\'s kind wins', () => {
    const usage = { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.prompt_tokens': 30, 'gen_ai.usage.completion_tokens': 5 };
    const s = normalise([
      span('1', { name: 'researcher.agent', 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'researcher', ...usage }),
      span('2', { name: 'openai.chat', 'llm.request.type': 'chat', ...usage }, { parentSpanId: '1' }),
      span('3', { name: 'writer', 'openinference.span.kind': 'AGENT', 'agent.name': 'writer', ...usage }),
    ]);
    expect(s.agentCalls.map((a) => a.agentName)).toEqual(['researcher', 'writer']);
    expect(s.llmCalls.map((c) => [c.id, c.agentCallId])).toEqual([['0000000000000002', '0000000000000001']]);
  });

  it('an implicit MAS call has its root span\'s status: a handled tool error does not make the run an error', () => {
    const s = normalise([
      span('1', { name: 'invoke_agent helper', 'gen_ai.operation.name': 'invoke_agent' }),
      span('2', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' }, { parentSpanId: '1', status: { code: 'error', message: 'not found' } }),
    ]);
    expect(s.masCalls).toHaveLength(1);
    expect(s.masCalls[0]!.status).toBe('unset');
    expect(s.toolCalls[0]!.status).toBe('error');
    const failed = normalise([span('3', { name: 'invoke_agent helper', 'gen_ai.operation.name': 'invoke_agent' }, { status: { code: 'error' } })]);
    expect(failed.masCalls[0]!.status).toBe('error');
    // An OK root is an OK run, as an explicit MAS call's OK span is.
    const ok = normalise([span('4', { name: 'invoke_agent helper', 'gen_ai.operation.name': 'invoke_agent' }, { status: { code: 'ok' } })]);
    expect([ok.masCalls[0]!.status, ok.agentCalls[0]!.status]).toEqual(['ok', 'ok']);
  });

  it('an implicit MAS call is named after its trace\'s root span, even when a child span started first (clocks of two services)', () => {
    const s = normalise([
      span('1', { name: 'handle_request' }, { startTime: 5000, endTime: 5100 }),
      span('2', { 'gen_ai.operation.name': 'chat' }, { parentSpanId: '1', startTime: 4990, endTime: 5050 }),
    ]);
    expect(s.masCalls).toEqual([{ kind: 'MASCall', id: T, traceId: T, name: 'handle_request', startTime: 4990, endTime: 5100, status: 'unset' }]);
  });

  it('a MAS call is attributed to no agent by name; the calls below it are', () => {
    const s = normalise([
      span('1', { name: 'invoke_agent coder', 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder' }, { startTime: 100, endTime: 9000 }),
      span('2', { name: 'invoke_workflow build', 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.agent.name': 'coder' }, { startTime: 200, endTime: 300 }),
      span('3', { 'gen_ai.operation.name': 'chat', 'gen_ai.agent.name': 'coder' }, { parentSpanId: '2', startTime: 210, endTime: 220 }),
    ]);
    expect(s.masCalls.map((m) => [m.id, m.agentCallId])).toEqual([['0000000000000002', undefined]]);
    expect(s.llmCalls.map((c) => [c.agentCallId, c.masCallId])).toEqual([['0000000000000001', '0000000000000002']]);
  });

  it('an attribute that is there but empty gives way to the next dialect\'s attribute for the field', () => {
    const s = normalise([span('1', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': '', 'llm.model_name': 'gpt-4o', 'gen_ai.system': '', 'llm.provider': 'openai' })]);
    expect(s.llmCalls.map((c) => [c.requestModel, c.provider])).toEqual([['gpt-4o', 'openai']]);
  });

  it('a parent cycle in a broken file is cut, once, where its walk closes; the calls below it keep their parents', () => {
    const s = normalise([
      span('1', { name: 'invoke_agent a', 'gen_ai.operation.name': 'invoke_agent' }, { parentSpanId: '2' }),
      span('2', { name: 'invoke_agent b', 'gen_ai.operation.name': 'invoke_agent' }, { parentSpanId: '1' }),
      span('3', { 'gen_ai.operation.name': 'chat' }, { parentSpanId: '2' }),
    ]);
    expect(s.agentCalls.map((a) => [a.id.slice(-1), a.parentId?.slice(-1)])).toEqual([['1', '2'], ['2', undefined]]);
    expect(s.llmCalls[0]).toMatchObject({ parentId: '0000000000000002', agentCallId: '0000000000000002' });
  });

  it('a 60,000-span chain (each span the parent of the next) is normalised in one pass per chain (quadratic walks took over 15 s)', () => {
    const savedClock = clock; // the other tests' spans stay where they expect them in time
    const spans = [span('1', { name: 'invoke_agent deep', 'gen_ai.operation.name': 'invoke_agent' })];
    for (let i = 2; i <= 60_000; i++) spans.push(span(String(i), { name: `step ${i}`, 'traceloop.span.kind': 'task' }, { parentSpanId: String(i - 1) }));
    spans.push(span('60001', { 'gen_ai.operation.name': 'chat' }, { parentSpanId: '60000' }));
    const s = normalise(spans);
    expect(s.taskCalls).toHaveLength(59_999);
    expect(s.llmCalls[0]).toMatchObject({ agentCallId: '0000000000000001', parentId: '0000000000060000' });
    expect(s.taskCalls[59_998]).toMatchObject({ agentCallId: '0000000000000001', parentId: '0000000000059999' });
    clock = savedClock;
  }, 10_000); // a generous bound (it takes well under a second) that the quadratic walks (about 19 s) could not meet

  it('a kind or span name that is an object\'s built-in key (constructor, __proto__, toString) is no kind, and the span stays', () => {
    const s = normalise([
      span('1', { name: 'invoke_agent a', 'gen_ai.operation.name': 'invoke_agent' }),
      span('2', { name: 'Planner.constructor', 'traceloop.span.kind': 'constructor' }, { parentSpanId: '1' }),
      span('3', { name: 'x', 'ioa_observe.span.kind': '__proto__' }, { parentSpanId: '2' }),
      span('4', { name: 'Helper.toString', 'gen_ai.operation.name': 'chat' }, { parentSpanId: '3' }),
    ]);
    expect(s.agentCalls).toHaveLength(1);
    expect(s.taskCalls).toHaveLength(0);
    expect(s.llmCalls.map((c) => [c.id, c.parentId, c.agentCallId])).toEqual([['0000000000000004', '0000000000000001', '0000000000000001']]);
  });

  it('a GenAI workflow span named "invoke_workflow X" is the workflow X', () => {
    const s = normalise([
      span('1', { name: 'invoke_workflow research', 'gen_ai.operation.name': 'invoke_workflow' }),
      span('2', { name: 'invoke_agent planner', 'gen_ai.operation.name': 'invoke_agent' }, { parentSpanId: '1' }),
    ]);
    expect(s.masCalls[0]).toMatchObject({ name: 'invoke_workflow research', workflowName: 'research' });
    expect(s.agentCalls[0]).toMatchObject({ agentName: 'planner' });
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
    // AI SDK 4 names the counts promptTokens / completionTokens.
    expect(s.llmCalls[0]!.usage).toEqual({ inputTokens: 9, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 10 });
  });

  it('Vercel: the cache counts of the provider metadata (Anthropic, OpenAI)', () => {
    const s = normalise([
      span('1', {
        'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 20, 'ai.usage.outputTokens': 5,
        'ai.response.providerMetadata': JSON.stringify({ anthropic: { cacheCreationInputTokens: 7, cacheReadInputTokens: 3 } }),
      }),
      span('2', {
        'ai.operationId': 'ai.streamText.doStream', 'ai.usage.inputTokens': 20, 'ai.usage.outputTokens': 5,
        'ai.response.providerMetadata': JSON.stringify({ openai: { cachedPromptTokens: 4 } }),
      }),
    ]);
    expect(s.llmCalls.map((c) => [c.usage.cacheReadTokens, c.usage.cacheWriteTokens, c.usage.totalTokens])).toEqual([[3, 7, 25], [4, 0, 25]]);
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

describe('packed values, tool definitions and message parts', () => {
  const llm = (attrs: Record<string, unknown>) => normalise([span('1', { name: 'call_model', model: 'm', ...attrs })]).llmCalls;

  it('a packed usage attribute is read as JSON or as a Python repr; anything else gives no tokens', () => {
    const usage = (u: string) => llm({ usage: u })[0]?.usage;
    const expected = { inputTokens: 4, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 6 };
    expect(usage('{"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6, "prompt_tokens_details": {"cached_tokens": 1}}')).toEqual(expected);
    expect(usage("{'prompt_tokens': 4, 'completion_tokens': 2, 'total_tokens': 6, 'prompt_tokens_details': {'cached_tokens': 1}, 'x': None}")).toEqual(expected);
    // Not a model call at all: neither bare token names nor a readable packed usage.
    expect(llm({ usage: 'prompt_tokens=4' })).toEqual([]);
  });

  it('Traceloop input_str arguments are read as JSON, else as a Python repr, else kept as text', () => {
    const args = (inputStr: string) =>
      normalise([span('1', { name: 'search.tool', 'traceloop.span.kind': 'tool', 'traceloop.entity.input': JSON.stringify({ input_str: inputStr }) })]).toolCalls[0]!.arguments;
    expect(args('{"query": "x"}')).toEqual({ query: 'x' });
    expect(args("{'query': 'x', 'exact': True}")).toEqual({ query: 'x', exact: true });
    expect(args('plain words')).toBe('plain words');
  });

  it('Vercel ai.prompt.tools: a list of JSON strings, or one JSON string of the list', () => {
    const tool = { type: 'function', name: 'search', description: 'Search the web', parameters: { type: 'object' } };
    const defs = (tools: unknown) =>
      normalise([span('1', { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.model.id': 'm', 'ai.prompt.tools': tools })]).llmCalls[0]!.toolDefinitions;
    const expected = [{ name: 'search', description: 'Search the web', inputSchema: { type: 'object' } }];
    expect(defs([JSON.stringify(tool)])).toEqual(expected);
    expect(defs(JSON.stringify([JSON.stringify(tool)]))).toEqual(expected);
    expect(defs(JSON.stringify([tool]))).toEqual(expected);
  });

  it("a tool span's own description is its definition when the model was offered none; an offered one wins", () => {
    const s = normalise([
      span('1', { name: 'chat', 'gen_ai.operation.name': 'chat', 'gen_ai.tool.definitions': JSON.stringify([{ name: 'offered', description: 'From the request' }]) }),
      span('2', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'offered', 'gen_ai.tool.description': 'From the span' }),
      span('3', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'weather', 'gen_ai.tool.description': 'Current weather' }),
      span('4', { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup', 'tool.description': 'Look an order up' }),
      span('5', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bare' }),
    ]);
    expect(s.toolCalls.map((t) => [t.toolName, t.definition])).toEqual([
      ['offered', { name: 'offered', description: 'From the request' }],
      ['weather', { name: 'weather', description: 'Current weather' }],
      ['lookup', { name: 'lookup', description: 'Look an order up' }],
      ['bare', undefined],
    ]);
  });

  it("a legacy message event with an empty role attribute takes the event's role", () => {
    const s = normalise([
      span('1', { 'llm.request.type': 'chat' }, { events: [{ name: 'gen_ai.user.message', time: 1, attributes: { role: '', content: 'Hi?' } }] }),
    ]);
    expect(s.llmCalls[0]!.inputMessages).toEqual([{ role: 'user', content: 'Hi?' }]);
  });

  it('text parts: the text is whichever of `text` / `content` is a string, in message parts and in content lists', () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'OpenAI part' }, { type: 'text', content: { not: 'text' }, text: 'text beside an object' }] },
      { role: 'user', parts: [{ type: 'text', content: 'GenAI part' }, { type: 'text', text: { value: 'x' }, content: 'content beside an object' }] },
      { role: 'tool', tool_call_id: 'c1', text: [{ type: 'text', text: { value: 'x' }, content: 'from a content list' }] },
    ];
    expect(normalise([span('1', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': JSON.stringify(messages) })]).llmCalls[0]!.inputMessages).toEqual([
      { role: 'user', content: 'OpenAI part\ntext beside an object' },
      { role: 'user', content: 'GenAI part\ncontent beside an object' },
      { role: 'tool', content: 'from a content list', toolCallId: 'c1' },
    ]);
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

  it('a session of 20,000 traces (one MAS call each) attributes every element to its own trace\'s MAS call in linear time', () => {
    // Each element used to be matched against every MAS call of the session: 40,000 elements × 20,000 MAS calls (8 s).
    const traces = 20_000;
    const spans: SpanRecord[] = [];
    for (let t = 0; t < traces; t++) {
      const traceId = t.toString(16).padStart(32, '0');
      const base = { kind: 'internal' as const, status: { code: 'unset' as const }, resource: {}, events: [] };
      // Overlapping windows: every trace runs from 10t to 10t + 25, so later traces start inside earlier ones.
      spans.push({ ...base, traceId, spanId: `${t.toString(16).padStart(12, '0')}0001`, name: 'planner.agent', startTime: 10 * t, endTime: 10 * t + 25,
        attributes: { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'planner' } });
      spans.push({ ...base, traceId, spanId: `${t.toString(16).padStart(12, '0')}0002`, parentSpanId: `${t.toString(16).padStart(12, '0')}0001`,
        name: 'lookup.tool', startTime: 10 * t + 20, endTime: 10 * t + 24, attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'lookup' } });
    }
    // No timing assertion: the quadratic matching this guards against runs past the test runner's timeout here.
    const s = normaliseSession('many-traces', spans, { warnings: new WarningSink() });
    expect([s.masCalls.length, s.agentCalls.length, s.toolCalls.length]).toEqual([traces, traces, traces]);
    expect(s.agentCalls.every((a) => a.masCallId === a.traceId)).toBe(true);
    expect(s.toolCalls.every((c) => c.masCallId === c.traceId)).toBe(true);
  });

  it('a LangGraph-shaped session of 40,000 spans whose tool spans lack call ids normalises in linear time', () => {
    // Per turn: an agent, its LLM call asking for `search`, the `search` tool span (no call id), its answering LLM call.
    // Matching each tool span and each agent against every LLM call took over ten seconds at this size.
    const turns = 10_000;
    const spans: SpanRecord[] = [];
    const add = (i: number, name: string, start: number, attributes: Record<string, unknown>, parent?: number) =>
      spans.push({
        traceId: T,
        spanId: i.toString(16).padStart(16, '0'),
        ...(parent !== undefined ? { parentSpanId: parent.toString(16).padStart(16, '0') } : {}),
        name,
        kind: 'internal',
        startTime: start,
        endTime: start + (name.endsWith('.agent') ? 9 : 1),
        status: { code: 'unset' },
        attributes,
        resource: {},
        events: [],
      });
    for (let t = 0; t < turns; t++) {
      const agent = 4 * t + 1;
      add(agent, 'researcher.agent', 10 * t, { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'researcher' });
      add(agent + 1, 'ChatOpenAI.chat', 10 * t + 1, {
        'llm.request.type': 'chat',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': `question ${t}`,
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.tool_calls.0.name': 'search',
        'gen_ai.completion.0.tool_calls.0.id': `call_${t}`,
      }, agent);
      add(agent + 2, 'search.tool', 10 * t + 3, { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'search' }, agent);
      add(agent + 3, 'ChatOpenAI.chat', 10 * t + 5, { 'llm.request.type': 'chat', 'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': `answer ${t}` }, agent);
    }
    // No timing assertion: the quadratic matching this guards against runs past the test runner's timeout here.
    const s = normaliseSession('langgraph', spans, { warnings: new WarningSink() });
    expect([s.agentCalls.length, s.llmCalls.length, s.toolCalls.length, s.masCalls.length]).toEqual([turns, 2 * turns, turns, 1]);
    expect(s.toolCalls.every((c, t) => c.toolCallId === `call_${t}` && c.agentCallId === s.agentCalls[t]!.id)).toBe(true);
    expect(s.agentCalls.every((a, t) => a.userInput === `question ${t}` && a.finalResponse === `answer ${t}`)).toBe(true);
    expect([s.userInput, s.finalResponse]).toEqual(['question 0', `answer ${turns - 1}`]);
    expect([s.masCalls[0]!.userInput, s.masCalls[0]!.finalResponse]).toEqual(['question 0', `answer ${turns - 1}`]);
  });
});
