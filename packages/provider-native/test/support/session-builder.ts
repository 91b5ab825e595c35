/**
 * Hand-built sessions for metric tests: each add* method appends one call with an id `<kind><n>` (or the given id)
 * and returns it, so tests can link calls (`agent: a1.id`) and assert against exact ids.
 */
import type {
  AgentCall,
  LLMCall,
  MASCall,
  MetricContext,
  MetricOutcome,
  MetricResult,
  MetricValue,
  OntologyLevel,
  ResultLookup,
  Session,
  Status,
  TaskCall,
  TokenUsage,
  ToolCall,
  ElementByLevel,
  Metric,
} from '@mce/core';
import { isSkip } from '@mce/core';

interface CallOptions {
  id?: string;
  start: number;
  end: number;
  /** agentCallId: the nearest enclosing agent call. */
  agent?: string;
  /** masCallId. */
  mas?: string;
  status?: Status;
  name?: string;
}

export interface LLMOptions extends CallOptions {
  responseModel?: string;
  requestModel?: string;
  provider?: string;
  usage?: Partial<TokenUsage>;
}

export class SessionBuilder {
  readonly session: Session;
  #n = 0;

  constructor(id = 'session-1', times: { start: number; end: number } = { start: 0, end: 0 }) {
    this.session = {
      kind: 'Session',
      id,
      startTime: times.start,
      endTime: times.end,
      traceIds: ['trace-1'],
      masCalls: [],
      agentCalls: [],
      taskCalls: [],
      llmCalls: [],
      toolCalls: [],
      mcpServers: [],
    };
  }

  #base(prefix: string, o: CallOptions, defaultName: string) {
    this.#n += 1;
    return {
      id: o.id ?? `${prefix}${this.#n}`,
      name: o.name ?? defaultName,
      startTime: o.start,
      endTime: o.end,
      status: o.status ?? 'ok',
      ...(o.agent !== undefined ? { agentCallId: o.agent } : {}),
      ...(o.mas !== undefined ? { masCallId: o.mas } : {}),
    };
  }

  mas(o: CallOptions): MASCall {
    const call: MASCall = { kind: 'MASCall', ...this.#base('mas', o, 'invoke_workflow') };
    this.session.masCalls.push(call);
    return call;
  }

  agent(agentName: string, o: CallOptions): AgentCall {
    const call: AgentCall = { kind: 'AgentCall', agentName, ...this.#base('agent', o, `invoke_agent ${agentName}`) };
    this.session.agentCalls.push(call);
    return call;
  }

  task(taskName: string, o: CallOptions): TaskCall {
    const call: TaskCall = { kind: 'TaskCall', taskName, ...this.#base('task', o, `${taskName}.task`) };
    this.session.taskCalls.push(call);
    return call;
  }

  llm(o: LLMOptions): LLMCall {
    const input = o.usage?.inputTokens ?? 0;
    const output = o.usage?.outputTokens ?? 0;
    const call: LLMCall = {
      kind: 'LLMCall',
      ...this.#base('llm', o, `chat ${o.responseModel ?? o.requestModel ?? ''}`.trim()),
      operation: 'chat',
      usage: {
        inputTokens: input,
        outputTokens: output,
        cacheReadTokens: o.usage?.cacheReadTokens ?? 0,
        cacheWriteTokens: o.usage?.cacheWriteTokens ?? 0,
        reasoningTokens: o.usage?.reasoningTokens ?? 0,
        totalTokens: o.usage?.totalTokens ?? input + output,
      },
      inputMessages: [],
      outputMessages: [],
      finishReasons: ['stop'],
      toolDefinitions: [],
      ...(o.responseModel !== undefined ? { responseModel: o.responseModel } : {}),
      ...(o.requestModel !== undefined ? { requestModel: o.requestModel } : {}),
      ...(o.provider !== undefined ? { provider: o.provider } : {}),
    };
    this.session.llmCalls.push(call);
    return call;
  }

  tool(toolName: string, o: CallOptions): ToolCall {
    const call: ToolCall = { kind: 'ToolCall', toolName, ...this.#base('tool', o, `execute_tool ${toolName}`) };
    this.session.toolCalls.push(call);
    return call;
  }

  build(): Session {
    return this.session;
  }
}

/** A ResultLookup over results given by hand (what the engine would have computed earlier in the run). */
export function lookupOf(results: readonly MetricResult[] = []): ResultLookup {
  return {
    get: (name, elementId) => results.find((r) => r.name === name && r.measures.id === elementId),
    all: (name) => results.filter((r) => r.name === name),
  };
}

/** A MetricResult as the engine would store it (only name, value and what it measures matter to aggregates). */
export function resultOf(name: string, level: OntologyLevel, id: string, value: number, sessionId = 'session-1'): MetricResult {
  return {
    id: `${name}-${id}`,
    name,
    result: value,
    reasoning: '',
    evaluationModel: null,
    evaluationPromptTokenCount: 0,
    evaluationCompletionTokenCount: 0,
    evaluationTotalTokenCount: 0,
    evaluationCost: 0,
    timestamp: '2026-01-01T00:00:00.000Z',
    ofMetricType: `mce:${name}`,
    measures: { level, id },
    sessionId,
  };
}

export function contextFor<L extends OntologyLevel>(
  session: Session,
  level: L,
  results: ResultLookup = lookupOf(),
  options: Record<string, unknown> = {},
): MetricContext<L> {
  return { session, level, options, results };
}

/** Runs a metric's compute synchronously-or-not on one element at a level. */
export async function run<L extends OntologyLevel>(
  metric: Metric,
  level: L,
  element: ElementByLevel[L],
  session: Session,
  results?: ResultLookup,
): Promise<MetricOutcome> {
  return (metric as Metric<L>).compute(element, contextFor(session, level, results));
}

/** The value outcome of a metric, failing the test when it was skipped. */
export async function valueOf<L extends OntologyLevel>(
  metric: Metric,
  level: L,
  element: ElementByLevel[L],
  session: Session,
  results?: ResultLookup,
): Promise<MetricValue> {
  const outcome = await run(metric, level, element, session, results);
  if (isSkip(outcome)) throw new Error(`expected a value, got skipped: ${outcome.skipped}`);
  return outcome;
}
