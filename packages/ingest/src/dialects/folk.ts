/**
 * Home-grown spans with bare names (`model`, `prompt_tokens`, `tokens.in`, `promptTokens`, a packed `usage` dict,
 * `prompt` / `completion`). Asked last: it only speaks when no convention did, and only for a span that names a
 * model and reports tokens.
 */
import type { SpanRecord } from '../span.js';
import { isObj, parseJsonOrPython } from '../messages.js';
import type { Dialect } from './types.js';

/** The packed `usage` attribute (JSON or a Python repr), parsed once per span: classification and four fields read it. */
const parsedUsage = new WeakMap<SpanRecord, unknown>();
function usageOf(span: SpanRecord): unknown {
  const raw = span.attributes.usage;
  if (typeof raw !== 'string') return raw;
  if (!parsedUsage.has(span)) parsedUsage.set(span, parseJsonOrPython(raw));
  return parsedUsage.get(span);
}

const packed = (...path: string[]) => (span: SpanRecord) => {
  let v = usageOf(span);
  for (const p of path) v = isObj(v) ? v[p] : undefined;
  return v;
};

const INPUT = ['prompt_tokens', 'tokens.in', 'promptTokens', 'input_tokens', 'inputTokens'];
const OUTPUT = ['completion_tokens', 'tokens.out', 'completionTokens', 'output_tokens', 'outputTokens'];

export const folk: Dialect = {
  name: 'folk',
  classify(span) {
    const a = span.attributes;
    if (typeof a.model !== 'string') return undefined;
    const hasTokens = [...INPUT, ...OUTPUT].some((k) => a[k] !== undefined) || packed('prompt_tokens')(span) !== undefined;
    return hasTokens ? { kind: 'llm', operation: 'chat' } : undefined;
  },
  fields: {
    requestModel: ['model'],
    provider: ['provider'],
    inputTokens: [...INPUT, packed('prompt_tokens')],
    outputTokens: [...OUTPUT, packed('completion_tokens')],
    totalTokens: ['total_tokens', 'totalTokens', packed('total_tokens')],
    cacheReadTokens: [packed('prompt_tokens_details', 'cached_tokens')],
    finishReasons: ['finish_reason'],
  },
  inputMessages: (span) => (typeof span.attributes.prompt === 'string' ? [{ role: 'user', content: span.attributes.prompt }] : undefined),
  outputMessages: (span) =>
    typeof span.attributes.completion === 'string' ? [{ role: 'assistant', content: span.attributes.completion }] : undefined,
};
