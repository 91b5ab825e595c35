/**
 * mozilla-ai any-agent's spans: GenAI names with its own operation `call_llm` (types.ts) and `gen_ai.tool.args`
 * (genai.ts), and the result of a call in `gen_ai.output` with `gen_ai.output.type` (`text` or `json`): for a model
 * call, its text or the list of tool requests it made (`[{"tool.name": …, "tool.args": "{…}"}]`); for a tool, its result.
 */
import type { Message, MessageToolCall } from '@mce/core';
import type { SpanRecord } from '../span.js';
import { isObj, parseJsonMaybe } from '../messages.js';
import type { Dialect } from './types.js';

const outputOf = (span: SpanRecord): unknown =>
  span.attributes['gen_ai.output.type'] === undefined ? undefined : span.attributes['gen_ai.output'];

/** A list of `{"tool.name", "tool.args"}` → the tool calls it requests; undefined when it is not one. */
function toolRequests(value: unknown): MessageToolCall[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const calls: MessageToolCall[] = [];
  for (const item of value) {
    if (!isObj(item) || typeof item['tool.name'] !== 'string') return undefined;
    const args = item['tool.args'];
    calls.push({ name: item['tool.name'], ...(args === undefined ? {} : { arguments: parseJsonMaybe(args) }) });
  }
  return calls;
}

function outputMessages(span: SpanRecord): Message[] | undefined {
  if (span.attributes['gen_ai.operation.name'] !== 'call_llm') return undefined;
  const raw = outputOf(span);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const parsed = span.attributes['gen_ai.output.type'] === 'json' ? parseJsonMaybe(raw) : raw;
  const calls = toolRequests(parsed);
  if (calls) return [{ role: 'assistant', content: '', toolCalls: calls }];
  return [{ role: 'assistant', content: typeof raw === 'string' ? raw : JSON.stringify(raw) }];
}

export const anyAgent: Dialect = {
  name: 'any-agent',
  fields: {
    toolResult: [(s) => (s.attributes['gen_ai.operation.name'] === 'execute_tool' ? outputOf(s) : undefined)],
  },
  outputMessages,
};
