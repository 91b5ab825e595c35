/**
 * Older GenAI names: `gen_ai.system`, `gen_ai.usage.prompt_tokens`/`completion_tokens`, the indexed
 * `gen_ai.prompt.N.*`/`gen_ai.completion.N.*` attributes, the message events (`gen_ai.user.message`, …,
 * `gen_ai.choice`, `gen_ai.content.prompt`/`completion`) and `llm.request.functions.N.*` tool definitions.
 */
import type { Message } from '@mce/core';
import type { SpanRecord } from '../span.js';
import {
  indexedMessages,
  indexedToolDefinitions,
  isObj,
  normaliseMessage,
  normaliseMessageList,
  parseJsonMaybe,
} from '../messages.js';
import type { Dialect } from './types.js';
import { llmOperation } from './types.js';

const EVENT_ROLES: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

function eventMessages(span: SpanRecord, output: boolean): Message[] | undefined {
  const out: Message[] = [];
  for (const e of span.events) {
    const a = e.attributes;
    if (!output && EVENT_ROLES[e.name]) {
      // The event's own `role` attribute when it names one, else the role of the event name. An event attribute
      // cannot hold a list: `tool_calls` comes JSON-encoded; a tool message names the call it answers in `id`.
      const fields: Record<string, unknown> = { ...a, content: a.content ?? a['gen_ai.event.content'] };
      if (a.tool_calls !== undefined) fields.tool_calls = parseJsonMaybe(a.tool_calls);
      if (e.name === 'gen_ai.tool.message' && a.tool_call_id === undefined && typeof a.id === 'string') fields.tool_call_id = a.id;
      const m = normaliseMessage(fields, EVENT_ROLES[e.name]);
      if (m) out.push(m);
    } else if (output && e.name === 'gen_ai.choice') {
      const msg = parseJsonMaybe(a.message);
      const m = normaliseMessage(isObj(msg) ? msg : { role: 'assistant', content: a.content, tool_calls: parseJsonMaybe(a.tool_calls) }, 'assistant');
      if (m) out.push(m);
    } else if (!output && e.name === 'gen_ai.content.prompt') {
      out.push(...(normaliseMessageList(a['gen_ai.prompt']) ?? []));
    } else if (output && e.name === 'gen_ai.content.completion') {
      out.push(...(normaliseMessageList(a['gen_ai.completion'], 'assistant') ?? []));
    }
  }
  return out.length ? out : undefined;
}

function indexedFinishReasons(span: SpanRecord): string[] | undefined {
  const out: string[] = [];
  for (const k in span.attributes) {
    if (k.startsWith('gen_ai.completion.') && k.endsWith('.finish_reason')) {
      const v = span.attributes[k];
      if (typeof v === 'string' && v !== '') out.push(v);
    }
  }
  return out.length ? out : undefined;
}

/** The `finish_reason` of each `gen_ai.choice` event. */
function choiceFinishReasons(span: SpanRecord): string[] | undefined {
  const out: string[] = [];
  for (const e of span.events) {
    const v = e.name === 'gen_ai.choice' ? e.attributes.finish_reason : undefined;
    if (typeof v === 'string' && v !== '') out.push(v);
  }
  return out.length ? out : undefined;
}

export const genaiLegacy: Dialect = {
  name: 'genai-legacy',
  classify(span) {
    const operation = llmOperation(span.attributes['llm.request.type']);
    return operation ? { kind: 'llm', operation } : undefined;
  },
  fields: {
    provider: ['gen_ai.system'],
    inputTokens: ['gen_ai.usage.prompt_tokens'],
    outputTokens: ['gen_ai.usage.completion_tokens'],
    totalTokens: ['llm.usage.total_tokens'],
    finishReasons: [indexedFinishReasons, choiceFinishReasons],
  },
  inputMessages(span) {
    return (
      indexedMessages(span.attributes, 'gen_ai.prompt') ??
      normaliseMessageList(span.attributes['gen_ai.prompt']) ??
      eventMessages(span, false)
    );
  },
  outputMessages(span) {
    return (
      indexedMessages(span.attributes, 'gen_ai.completion') ??
      normaliseMessageList(span.attributes['gen_ai.completion'], 'assistant') ??
      eventMessages(span, true)
    );
  },
  toolDefinitions: (span) => indexedToolDefinitions(span.attributes, 'llm.request.functions'),
};
