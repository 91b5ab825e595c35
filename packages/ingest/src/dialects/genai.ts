/** OpenTelemetry GenAI semantic conventions, current names (`gen_ai.operation.name`, `gen_ai.provider.name`, …). */
import type { Message } from '@mce/core';
import { isObj, normaliseMessageList, normaliseToolDefinitions, parseJsonMaybe } from '../messages.js';
import type { Dialect } from './types.js';
import { llmOperation } from './types.js';

const OPERATION_KIND: Record<string, 'mas' | 'agent' | 'task' | 'tool'> = {
  invoke_workflow: 'mas',
  invoke_agent: 'agent',
  // Creating an agent is set-up work inside the run, not an agent invocation.
  create_agent: 'task',
  execute_tool: 'tool',
};

/** The `finish_reason` of each output message (GenAI's structured messages carry it there). */
function outputFinishReasons(span: { attributes: Record<string, unknown> }): string[] | undefined {
  const out = parseJsonMaybe(span.attributes['gen_ai.output.messages']);
  if (!Array.isArray(out)) return undefined;
  const reasons = out.map((m) => (isObj(m) ? m.finish_reason : undefined)).filter((r): r is string => typeof r === 'string' && r !== '');
  return reasons.length ? reasons : undefined;
}

export const genai: Dialect = {
  name: 'genai',
  classify(span) {
    const op = span.attributes['gen_ai.operation.name'];
    if (typeof op === 'string') {
      const operation = llmOperation(op);
      if (operation) return { kind: 'llm', operation };
      const kind = OPERATION_KIND[op];
      if (kind) return { kind };
    }
    // Proxies write their own operation names (LiteLLM: `acompletion`); a requested model plus usage is a model call —
    // unless the span's own instrumentation says what it is (an OpenLLMetry or OpenInference agent span may carry the
    // model and usage of the calls it made): then that dialect decides.
    const a = span.attributes;
    if (a['traceloop.span.kind'] !== undefined || a['openinference.span.kind'] !== undefined) return undefined;
    const hasUsage = a['gen_ai.usage.input_tokens'] !== undefined || a['gen_ai.usage.prompt_tokens'] !== undefined;
    return a['gen_ai.request.model'] !== undefined && hasUsage ? { kind: 'llm', operation: 'chat' } : undefined;
  },
  fields: {
    requestModel: ['gen_ai.request.model'],
    responseModel: ['gen_ai.response.model'],
    provider: ['gen_ai.provider.name'],
    inputTokens: ['gen_ai.usage.input_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens'],
    cacheReadTokens: ['gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens'],
    cacheWriteTokens: ['gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens'],
    reasoningTokens: ['gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens'],
    totalTokens: ['gen_ai.usage.total_tokens'],
    finishReasons: ['gen_ai.response.finish_reasons', outputFinishReasons],
    toolName: ['gen_ai.tool.name'],
    toolCallId: ['gen_ai.tool.call.id'],
    // `gen_ai.tool.args`: any-agent's spelling.
    toolArguments: ['gen_ai.tool.call.arguments', 'gen_ai.tool.args'],
    toolResult: ['gen_ai.tool.call.result'],
    toolDescription: ['gen_ai.tool.description'],
    agentName: ['gen_ai.agent.name'],
    agentId: ['gen_ai.agent.id'],
    workflowName: ['gen_ai.workflow.name'],
    errorType: ['error.type'],
  },
  inputMessages(span) {
    const a = span.attributes;
    const list = normaliseMessageList(a['gen_ai.input.messages']);
    const system = a['gen_ai.system_instructions'];
    if (system === undefined) return list;
    const sys = normaliseMessageList(system, 'system') ?? [];
    const text = sys.map((m) => m.content).join('\n');
    const head: Message[] = text !== '' ? [{ role: 'system', content: text }] : [];
    return [...head, ...(list ?? [])];
  },
  outputMessages: (span) => normaliseMessageList(span.attributes['gen_ai.output.messages'], 'assistant'),
  toolDefinitions: (span) => normaliseToolDefinitions(span.attributes['gen_ai.tool.definitions']),
};
