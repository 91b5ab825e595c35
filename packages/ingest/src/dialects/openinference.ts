/** Arize OpenInference: `openinference.span.kind`, `llm.*`, `llm.token_count.*`, indexed messages, `tool.*`. */
import { indexedMessages, indexedToolDefinitions, isObj, parseJsonMaybe } from '../messages.js';
import type { Classification, Dialect } from './types.js';

const KINDS: Record<string, Classification> = {
  LLM: { kind: 'llm', operation: 'chat' },
  EMBEDDING: { kind: 'llm', operation: 'embeddings' },
  TOOL: { kind: 'tool' },
  AGENT: { kind: 'agent' },
  CHAIN: { kind: 'task' },
  RETRIEVER: { kind: 'task' },
  RERANKER: { kind: 'task' },
  GUARDRAIL: { kind: 'task' },
  EVALUATOR: { kind: 'task' },
};

const invocationModel = (span: { attributes: Record<string, unknown> }) => {
  const p = parseJsonMaybe(span.attributes['llm.invocation_parameters']);
  return isObj(p) && typeof p.model === 'string' ? p.model : undefined;
};

/** Finish reasons of the raw OpenAI-style response OpenInference keeps in `output.value`. */
const responseFinishReasons = (span: { attributes: Record<string, unknown> }) => {
  if (span.attributes['openinference.span.kind'] === undefined) return undefined;
  const out = parseJsonMaybe(span.attributes['output.value']);
  if (!isObj(out) || !Array.isArray(out.choices)) return undefined;
  const reasons = out.choices.map((c) => (isObj(c) ? c.finish_reason : undefined)).filter((r) => typeof r === 'string');
  return reasons.length ? reasons : undefined;
};

export const openinference: Dialect = {
  name: 'openinference',
  classify(span) {
    const k = span.attributes['openinference.span.kind'];
    return typeof k === 'string' && Object.hasOwn(KINDS, k.toUpperCase()) ? KINDS[k.toUpperCase()] : undefined;
  },
  fields: {
    requestModel: [invocationModel, 'llm.model_name'],
    responseModel: ['llm.model_name'],
    provider: ['llm.provider', 'llm.system'],
    inputTokens: ['llm.token_count.prompt'],
    outputTokens: ['llm.token_count.completion'],
    cacheReadTokens: ['llm.token_count.prompt_details.cache_read'],
    cacheWriteTokens: ['llm.token_count.prompt_details.cache_write'],
    reasoningTokens: ['llm.token_count.completion_details.reasoning'],
    totalTokens: ['llm.token_count.total'],
    finishReasons: ['llm.finish_reason', responseFinishReasons],
    toolName: ['tool.name', 'tool_call.function.name'],
    toolCallId: ['tool_call.id'],
    // Not `tool.parameters`: in OpenInference that is the tool's JSON schema; a TOOL span's arguments are input.value.
    toolArguments: ['tool_call.function.arguments'],
    toolDescription: ['tool.description'],
    agentName: ['agent.name', 'graph.node.id'],
    input: ['input.value'],
    output: ['output.value'],
  },
  inputMessages: (span) => indexedMessages(span.attributes, 'llm.input_messages', 'message.', 'tool_call.'),
  outputMessages: (span) => indexedMessages(span.attributes, 'llm.output_messages', 'message.', 'tool_call.'),
  toolDefinitions: (span) => indexedToolDefinitions(span.attributes, 'llm.tools'),
};
