/**
 * Hand-built sessions and results for the store conformance suite: every optional field of every ontology class
 * is filled, so a round trip that drops or reshapes anything fails.
 */
import type {
  AgentCall,
  Call,
  LLMCall,
  MASCall,
  MCPServer,
  MetricDefinition,
  MetricResult,
  OntologyLevel,
  Session,
  TaskCall,
  ToolCall,
} from '@mce/core';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
/** The time `metricResult`'s `at` counts from, and the default start of the sessions below. */
export const T0_MS = T0;

export const weatherServer: MCPServer = {
  name: 'weather',
  transport: 'stdio',
  tools: [
    {
      name: 'get_forecast',
      description: 'Forecast for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  resources: [{ uri: 'weather://stations', name: 'stations', description: 'All stations', mimeType: 'application/json' }],
  prompts: [
    {
      name: 'daily_report',
      description: 'A report for one day',
      arguments: [{ name: 'date', description: 'ISO date', required: true }],
    },
  ],
};

/** A session with one of each call class, every field set (times with sub-millisecond fractions). */
export function richSession(id = 'sess-rich', start = T0): Session {
  const traceId = `${id}-trace-1`;
  const mas: MASCall = {
    kind: 'MASCall',
    id: `${id}-mas`,
    traceId,
    name: 'invoke_workflow travel',
    startTime: start,
    endTime: start + 5000.25,
    status: 'ok',
    input: { question: 'Weather in Paris?' },
    output: 'Sunny, 21°C',
    attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'travel', retries: 0 },
    workflowName: 'travel',
    userInput: 'Weather in Paris?',
    finalResponse: 'Sunny, 21°C',
  };
  const agent: AgentCall = {
    kind: 'AgentCall',
    id: `${id}-agent`,
    traceId,
    parentId: mas.id,
    masCallId: mas.id,
    name: 'invoke_agent planner',
    startTime: start + 10.5,
    endTime: start + 4900.125,
    status: 'ok',
    input: 'Weather in Paris?',
    output: 'Sunny, 21°C',
    attributes: { 'gen_ai.agent.name': 'planner' },
    agentName: 'planner',
    agentId: 'agent-42',
    userInput: 'Weather in Paris?',
    finalResponse: 'Sunny, 21°C',
    mcpServers: [weatherServer],
  };
  const task: TaskCall = {
    kind: 'TaskCall',
    id: `${id}-task`,
    traceId,
    parentId: agent.id,
    masCallId: mas.id,
    agentCallId: agent.id,
    name: 'plan.task',
    startTime: start + 20,
    endTime: start + 4800,
    status: 'unset',
    input: { steps: ['lookup', 'answer'] },
    output: { done: true },
    attributes: { 'traceloop.span.kind': 'task' },
    taskName: 'plan',
  };
  const llm: LLMCall = {
    kind: 'LLMCall',
    id: `${id}-llm`,
    traceId,
    parentId: task.id,
    masCallId: mas.id,
    agentCallId: agent.id,
    name: 'chat gpt-4o',
    startTime: start + 30.000001,
    endTime: start + 1530.999999,
    status: 'ok',
    attributes: { 'gen_ai.request.temperature': 0.2, 'gen_ai.request.stop': ['\n\n'], nested: { a: [1, { b: null }] } },
    operation: 'chat',
    requestModel: 'gpt-4o',
    responseModel: 'gpt-4o-2024-08-06',
    provider: 'openai',
    usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 16, totalTokens: 1280 },
    inputMessages: [
      { role: 'system', content: 'You plan trips.' },
      { role: 'user', content: 'Weather in Paris?', name: 'alice' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'get_forecast', arguments: { city: 'Paris' } }],
      },
      { role: 'tool', content: '{"temp":21}', toolCallId: 'call_1', name: 'get_forecast' },
    ],
    outputMessages: [{ role: 'assistant', content: 'Sunny, 21°C — «quotes» and emoji 🌞' }],
    finishReasons: ['stop'],
    toolDefinitions: [{ name: 'get_forecast', description: 'Forecast for a city', inputSchema: { type: 'object' } }],
  };
  const tool: ToolCall = {
    kind: 'ToolCall',
    id: `${id}-tool`,
    traceId: `${id}-trace-2`,
    parentId: agent.id,
    masCallId: mas.id,
    agentCallId: agent.id,
    name: 'execute_tool get_forecast',
    startTime: start + 1600,
    endTime: start + 1700.5,
    status: 'error',
    error: { type: 'TimeoutError', message: 'upstream took 30s' },
    input: { city: 'Paris' },
    output: null,
    attributes: { 'mcp.method.name': 'tools/call' },
    toolName: 'get_forecast',
    toolCallId: 'call_1',
    arguments: { city: 'Paris', units: ['metric'] },
    result: { temp: 21, ok: false },
    definition: { name: 'get_forecast', description: 'Forecast for a city', inputSchema: { type: 'object' } },
    mcp: { server: 'weather', kind: 'tool', method: 'tools/call', uri: 'weather://tools/get_forecast' },
  };
  return {
    kind: 'Session',
    id,
    startTime: start,
    endTime: start + 5000.25,
    serviceName: 'travel-service',
    appName: 'travel-app',
    traceIds: [traceId, `${id}-trace-2`],
    userInput: 'Weather in Paris?',
    finalResponse: 'Sunny, 21°C',
    masCalls: [mas],
    agentCalls: [agent],
    taskCalls: [task],
    llmCalls: [llm],
    toolCalls: [tool],
    mcpServers: [weatherServer, { name: 'empty', tools: [], resources: [], prompts: [] }],
    attributes: { 'service.version': '1.2.3', tenant: { id: 7 } },
  };
}

/** A minimal session: required fields only. */
export function bareSession(id: string, start: number, extra: Partial<Session> = {}): Session {
  return {
    kind: 'Session',
    id,
    startTime: start,
    endTime: start + 1000,
    traceIds: [],
    masCalls: [],
    agentCalls: [],
    taskCalls: [],
    llmCalls: [],
    toolCalls: [],
    mcpServers: [],
    ...extra,
  };
}

export function toolCall(sessionId: string, n: number, start: number, extra: Partial<ToolCall> = {}): ToolCall {
  return {
    kind: 'ToolCall',
    id: `${sessionId}-tool-${n}`,
    name: `execute_tool t${n}`,
    startTime: start + n,
    endTime: start + n + 0.5,
    status: 'ok',
    toolName: `t${n}`,
    arguments: { n },
    ...extra,
  };
}

/**
 * A session of `spans` calls cycling through the five call classes (an agent per 50 spans, LLM calls with a few
 * messages each), as an ingester would produce for a long run.
 */
export function bigSession(id: string, spans: number, start = T0): Session {
  const session = bareSession(id, start, { serviceName: 'bench', traceIds: [`${id}-trace`] });
  const mas: MASCall = { kind: 'MASCall', id: `${id}-m0`, traceId: `${id}-trace`, name: 'workflow', startTime: start, endTime: start + spans, status: 'ok' };
  session.masCalls.push(mas);
  let agentId = '';
  for (let i = 1; i < spans; i++) {
    const base = { id: `${id}-s${i}`, traceId: `${id}-trace`, masCallId: mas.id, startTime: start + i, endTime: start + i + 0.75, status: 'ok' as const };
    let call: Call;
    if (i % 50 === 1) {
      agentId = base.id;
      call = { ...base, kind: 'AgentCall', parentId: mas.id, name: `invoke_agent a${i}`, agentName: `a${i % 7}` };
    } else if (i % 4 === 0) {
      call = {
        ...base,
        kind: 'LLMCall',
        parentId: agentId,
        agentCallId: agentId,
        name: 'chat',
        operation: 'chat',
        requestModel: 'gpt-4o-mini',
        usage: { inputTokens: 100 + i, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 120 + i },
        inputMessages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: `question ${i} `.repeat(5) },
        ],
        outputMessages: [{ role: 'assistant', content: `answer ${i}` }],
        finishReasons: ['stop'],
        toolDefinitions: [],
      };
    } else if (i % 4 === 1) {
      call = { ...base, kind: 'TaskCall', parentId: agentId, agentCallId: agentId, name: 'task', taskName: `task${i}` };
    } else {
      call = { ...base, kind: 'ToolCall', parentId: agentId, agentCallId: agentId, name: 'tool', toolName: `tool${i % 9}`, arguments: { i }, result: `r${i}` };
    }
    pushCall(session, call);
  }
  return session;
}

export function pushCall(session: Session, call: Call): void {
  ({
    MASCall: session.masCalls,
    AgentCall: session.agentCalls,
    TaskCall: session.taskCalls,
    LLMCall: session.llmCalls,
    ToolCall: session.toolCalls,
  })[call.kind].push(call as never);
}

export const DEFINITIONS: MetricDefinition[] = [
  { id: 'mce:Duration', name: 'Duration', computedBy: 'mce', unit: 'ms', valueRange: 'non-negative number', description: 'Wall time' },
  { id: 'mce:ToolErrorRate', name: 'ToolErrorRate', computedBy: 'mce', unit: '%', valueRange: '0-100' },
  { id: 'deepeval:AnswerRelevancy', name: 'AnswerRelevancy', computedBy: 'deepeval', unit: 'dimensionless', valueRange: '0.0-1.0' },
];

/** A valid result; `at` is the computation time in seconds after 2026-01-01T00:00:00Z. */
export function metricResult(
  id: string,
  sessionId: string,
  options: { metric?: MetricDefinition; level?: OntologyLevel; measures?: string; at?: number; value?: number } = {},
): MetricResult {
  const metric = options.metric ?? DEFINITIONS[0]!;
  const judged = metric.computedBy === 'deepeval';
  return {
    id,
    name: metric.name,
    result: options.value ?? 0.75,
    reasoning: judged ? 'The answer addresses the question.' : '',
    evaluationModel: judged ? 'gpt-4o' : null,
    evaluationPromptTokenCount: judged ? 512 : 0,
    evaluationCompletionTokenCount: judged ? 40 : 0,
    evaluationTotalTokenCount: judged ? 552 : 0,
    evaluationCost: judged ? 0.00168 : 0,
    timestamp: new Date(T0 + (options.at ?? 0) * 1000).toISOString(),
    ofMetricType: metric.id,
    measures: { level: options.level ?? 'Session', id: options.measures ?? sessionId },
    sessionId,
    ...(judged ? { details: { samples: [4, 5], method: 'logprobs' } } : {}),
  };
}

/** The reserved attribute trace ingestion marks a call with when its parent span is in another part. */
const MISSING = 'mce.missing_parent_span_id';
const TRIP_TRACE = 'f00df00df00df00df00df00df00df00d';

function tripLlm(id: string, start: number, user: string, reply: string, extra: Partial<LLMCall> = {}): LLMCall {
  return {
    kind: 'LLMCall',
    id,
    traceId: TRIP_TRACE,
    name: 'chat gpt-4o',
    startTime: start,
    endTime: start + 10,
    status: 'ok',
    attributes: { 'gen_ai.operation.name': 'chat' },
    operation: 'chat',
    requestModel: 'gpt-4o',
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 15 },
    inputMessages: [{ role: 'user', content: user }],
    outputMessages: [{ role: 'assistant', content: reply }],
    finishReasons: ['stop'],
    toolDefinitions: [],
    ...extra,
  };
}

/**
 * One session of one trace as trace ingestion reads it in two parts: `withRoot` holds the workflow span, the agent
 * and a first LLM call; `withoutRoot` the rest — an LLM call and a task (with a tool call below it) whose parent span,
 * the agent, is in the other part, and the implicit MAS call a part without a workflow span gets.
 */
export function tripInParts(id = 'trip', start = T0): { withRoot: Session; withoutRoot: Session } {
  const w: MASCall = {
    kind: 'MASCall', id: `${id}-w`, traceId: TRIP_TRACE, name: 'invoke_workflow trip', startTime: start, endTime: start + 100, status: 'ok',
    attributes: { 'gen_ai.operation.name': 'invoke_workflow' }, workflowName: 'trip', userInput: 'plan a trip', finalResponse: 'first answer',
  };
  const agent: AgentCall = {
    kind: 'AgentCall', id: `${id}-a`, traceId: TRIP_TRACE, parentId: w.id, masCallId: w.id, name: 'invoke_agent planner', startTime: start + 10,
    endTime: start + 90, status: 'ok', attributes: { 'gen_ai.operation.name': 'invoke_agent' }, agentName: 'planner', userInput: 'plan a trip',
    finalResponse: 'first answer',
  };
  const first = tripLlm(`${id}-l1`, start + 20, 'plan a trip', 'first answer', { parentId: agent.id, agentCallId: agent.id, masCallId: w.id });
  const withRoot = bareSession(id, start, {
    endTime: start + 100, traceIds: [TRIP_TRACE], userInput: 'plan a trip', finalResponse: 'first answer',
    masCalls: [w], agentCalls: [agent], llmCalls: [first],
  });
  const implicit: MASCall = {
    kind: 'MASCall', id: TRIP_TRACE, traceId: TRIP_TRACE, name: 'chat gpt-4o', startTime: start + 40, endTime: start + 80, status: 'unset',
    attributes: { [MISSING]: agent.id }, userInput: 'and the hotel?', finalResponse: 'second answer',
  };
  const second = tripLlm(`${id}-l2`, start + 40, 'and the hotel?', 'second answer', { masCallId: TRIP_TRACE, attributes: { 'gen_ai.operation.name': 'chat', [MISSING]: agent.id } });
  const task: TaskCall = {
    kind: 'TaskCall', id: `${id}-k`, traceId: TRIP_TRACE, masCallId: TRIP_TRACE, name: 'book.task', startTime: start + 60, endTime: start + 80,
    status: 'ok', attributes: { 'traceloop.span.kind': 'task', [MISSING]: agent.id }, taskName: 'book',
  };
  const tool: ToolCall = {
    kind: 'ToolCall', id: `${id}-t`, traceId: TRIP_TRACE, parentId: task.id, masCallId: TRIP_TRACE, name: 'execute_tool book_hotel',
    startTime: start + 65, endTime: start + 70, status: 'ok', toolName: 'book_hotel', arguments: { city: 'Paris' },
  };
  const withoutRoot = bareSession(id, start + 40, {
    endTime: start + 80, traceIds: [TRIP_TRACE], userInput: 'and the hotel?', finalResponse: 'second answer',
    masCalls: [implicit], llmCalls: [second], taskCalls: [task], toolCalls: [tool],
  });
  return { withRoot, withoutRoot };
}

const NEST_TRACE = 'beefbeefbeefbeefbeefbeefbeefbeef';

/**
 * One session of one trace as trace ingestion reads it in two parts, with two calls seen as two nested spans each:
 * `outer` holds the workflow, the agent, a LangChain LLM span (no provider tokens breakdown, no reply) and an
 * `execute_tool` span; `inner`, exported by other processes, holds the OpenAI client's span inside that LLM span and
 * the MCP server's span of the same tool inside the tool span (both name their outer span as missing parent), an LLM
 * call the MCP server made inside its span, and the implicit MAS call of a part without a workflow span. Read at once,
 * the inner spans are folded into the outer calls: 1,050 tokens for the model call, not 2,100.
 */
export function nestedInParts(id = 'nest', start = T0): { outer: Session; inner: Session } {
  const usage = (input: number, output: number, cacheRead = 0) => ({
    inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: input + output,
  });
  const base = { traceId: NEST_TRACE, status: 'ok' as const };
  const w: MASCall = {
    ...base, kind: 'MASCall', id: `${id}-w`, name: 'invoke_workflow weather', startTime: start, endTime: start + 1000,
    attributes: { 'gen_ai.operation.name': 'invoke_workflow' }, workflowName: 'weather', userInput: 'Weather in Paris?',
  };
  const agent: AgentCall = {
    ...base, kind: 'AgentCall', id: `${id}-a`, parentId: w.id, masCallId: w.id, name: 'invoke_agent planner', startTime: start + 10, endTime: start + 900,
    attributes: { 'gen_ai.operation.name': 'invoke_agent' }, agentName: 'planner', userInput: 'Weather in Paris?',
  };
  const links = { parentId: agent.id, agentCallId: agent.id, masCallId: w.id };
  const llm: LLMCall = {
    ...base, ...links, kind: 'LLMCall', id: `${id}-l`, name: 'ChatOpenAI.chat', startTime: start + 20, endTime: start + 220,
    attributes: { 'llm.request.type': 'chat', 'gen_ai.system': 'Langchain', 'gen_ai.request.model': 'gpt-4o' },
    operation: 'chat', requestModel: 'gpt-4o', provider: 'Langchain', usage: usage(1000, 50),
    inputMessages: [{ role: 'user', content: 'Weather in Paris?' }], outputMessages: [], finishReasons: [], toolDefinitions: [],
  };
  const tool: ToolCall = {
    ...base, ...links, kind: 'ToolCall', id: `${id}-t`, name: 'execute_tool get_weather', startTime: start + 300, endTime: start + 600,
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1', 'gen_ai.tool.call.arguments': '{"city":"Paris"}' },
    toolName: 'get_weather', toolCallId: 'call_1', arguments: { city: 'Paris' },
  };
  const outer = bareSession(id, start, {
    traceIds: [NEST_TRACE], userInput: 'Weather in Paris?', masCalls: [w], agentCalls: [agent], llmCalls: [llm], toolCalls: [tool],
  });

  const implicit: MASCall = {
    ...base, kind: 'MASCall', id: NEST_TRACE, name: 'openai.chat', startTime: start + 25, endTime: start + 590, status: 'unset',
    attributes: { [MISSING]: llm.id }, finalResponse: 'Clear skies in Paris.',
  };
  const client: LLMCall = {
    ...base, kind: 'LLMCall', id: `${id}-li`, masCallId: NEST_TRACE, name: 'openai.chat', startTime: start + 25, endTime: start + 215,
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', [MISSING]: llm.id },
    operation: 'chat', responseModel: 'gpt-4o-2024-08-06', provider: 'openai', usage: usage(1000, 50, 800),
    inputMessages: [], outputMessages: [{ role: 'assistant', content: 'Let me look.' }], finishReasons: ['tool_calls'], toolDefinitions: [],
  };
  const server: ToolCall = {
    ...base, kind: 'ToolCall', id: `${id}-ti`, masCallId: NEST_TRACE, name: 'tools/call get_weather', startTime: start + 310, endTime: start + 590,
    status: 'error', error: { type: 'partial_result' },
    attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.result': '{"sky":"clear"}', 'error.type': 'partial_result', [MISSING]: tool.id },
    toolName: 'get_weather', result: { sky: 'clear' }, mcp: { kind: 'tool', method: 'tools/call', server: 'weather-mcp' },
  };
  const serverLlm: LLMCall = {
    ...base, kind: 'LLMCall', id: `${id}-ls`, parentId: server.id, masCallId: NEST_TRACE, name: 'chat gpt-4o-mini', startTime: start + 320, endTime: start + 580,
    attributes: { 'gen_ai.operation.name': 'chat' }, operation: 'chat', requestModel: 'gpt-4o-mini', usage: usage(20, 5),
    inputMessages: [], outputMessages: [{ role: 'assistant', content: 'Clear skies in Paris.' }], finishReasons: ['stop'], toolDefinitions: [],
  };
  const inner = bareSession(id, start + 25, {
    endTime: start + 590, traceIds: [NEST_TRACE], finalResponse: 'Clear skies in Paris.', masCalls: [implicit], llmCalls: [client, serverLlm],
    toolCalls: [server], mcpServers: [{ name: 'weather-mcp', tools: [{ name: 'get_weather' }], resources: [], prompts: [] }],
  });
  return { outer, inner };
}
