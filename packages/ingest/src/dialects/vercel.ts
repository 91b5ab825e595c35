/** Vercel AI SDK (`ai` scope): `ai.operationId`, `ai.model.*`, `ai.usage.*`, `ai.prompt*`, `ai.response.*`, `ai.toolCall.*`. */
import type { Message } from '@mce/core';
import type { SpanRecord } from '../span.js';
import { isObj, normaliseMessage, normaliseMessageList, normaliseToolDefinitions, parseJsonMaybe } from '../messages.js';
import type { Classification, Dialect } from './types.js';

function classifyOperation(op: string): Classification | undefined {
  if (/\.do(Generate|Stream)$/.test(op)) return { kind: 'llm', operation: 'chat' };
  if (/\.doEmbed$/.test(op)) return { kind: 'llm', operation: 'embeddings' };
  if (op === 'ai.toolCall') return { kind: 'tool' };
  // The outer `ai.generateText` / `ai.streamText` … spans wrap the provider calls (and repeat their usage).
  if (/^ai\.(generateText|streamText|generateObject|streamObject|embed|embedMany)$/.test(op)) return { kind: 'task' };
  return undefined;
}

const providerMeta = (span: SpanRecord): Record<string, unknown> => {
  const p = parseJsonMaybe(span.attributes['ai.response.providerMetadata']);
  return isObj(p) ? p : {};
};
const metaValue = (keys: [string, string][]) => (span: SpanRecord) => {
  const p = providerMeta(span);
  for (const [provider, key] of keys) {
    const section = p[provider];
    if (isObj(section) && section[key] !== undefined) return section[key];
  }
  return undefined;
};

function inputMessages(span: SpanRecord): Message[] | undefined {
  const a = span.attributes;
  const msgs = normaliseMessageList(a['ai.prompt.messages']);
  if (msgs) return msgs;
  const prompt = parseJsonMaybe(a['ai.prompt']);
  if (!isObj(prompt)) return typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : undefined;
  const out: Message[] = [];
  if (typeof prompt.system === 'string') out.push({ role: 'system', content: prompt.system });
  if (Array.isArray(prompt.messages)) out.push(...(normaliseMessageList(prompt.messages) ?? []));
  if (typeof prompt.prompt === 'string') out.push({ role: 'user', content: prompt.prompt });
  return out;
}

function outputMessages(span: SpanRecord): Message[] | undefined {
  const a = span.attributes;
  const text = a['ai.response.text'] ?? a['ai.response.object'];
  const calls = parseJsonMaybe(a['ai.response.toolCalls']);
  if (text === undefined && calls === undefined) return undefined;
  const m = normaliseMessage(
    { role: 'assistant', content: typeof text === 'string' ? text : text === undefined ? '' : JSON.stringify(text), tool_calls: Array.isArray(calls) ? calls : [] },
    'assistant',
  );
  return m ? [m] : undefined;
}

export const vercel: Dialect = {
  name: 'vercel',
  classify(span) {
    const op = span.attributes['ai.operationId'];
    return typeof op === 'string' ? classifyOperation(op) : undefined;
  },
  fields: {
    requestModel: ['ai.model.id'],
    responseModel: ['ai.response.model'],
    provider: ['ai.model.provider'],
    inputTokens: ['ai.usage.inputTokens', 'ai.usage.promptTokens'],
    outputTokens: ['ai.usage.outputTokens', 'ai.usage.completionTokens'],
    totalTokens: ['ai.usage.totalTokens'],
    reasoningTokens: ['ai.usage.reasoningTokens'],
    cacheReadTokens: ['ai.usage.cachedInputTokens', metaValue([['openai', 'cachedPromptTokens'], ['anthropic', 'cacheReadInputTokens']])],
    cacheWriteTokens: [metaValue([['anthropic', 'cacheCreationInputTokens']])],
    finishReasons: ['ai.response.finishReason'],
    toolName: ['ai.toolCall.name'],
    toolCallId: ['ai.toolCall.id'],
    toolArguments: ['ai.toolCall.args', 'ai.toolCall.input'],
    toolResult: ['ai.toolCall.result', 'ai.toolCall.output'],
    workflowName: ['ai.telemetry.functionId'],
  },
  inputMessages,
  outputMessages,
  // A list of JSON strings (one per tool) or one JSON string of the list: each item is parsed by the normaliser.
  toolDefinitions: (span) => normaliseToolDefinitions(span.attributes['ai.prompt.tools']),
};
