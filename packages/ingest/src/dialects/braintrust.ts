/** Braintrust ingestion attributes: `braintrust.span_attributes` (type llm), `braintrust.input_json` / `output_json` / `metrics`. */
import type { SpanRecord } from '../span.js';
import { isObj, normaliseMessageList, parseJsonMaybe } from '../messages.js';
import type { Dialect } from './types.js';

const json = (key: string, field: string) => (span: SpanRecord) => {
  const v = parseJsonMaybe(span.attributes[key]);
  return isObj(v) ? v[field] : undefined;
};

export const braintrust: Dialect = {
  name: 'braintrust',
  classify(span) {
    const t = json('braintrust.span_attributes', 'type')(span);
    return t === 'llm' ? { kind: 'llm', operation: 'chat' } : undefined;
  },
  fields: {
    requestModel: [json('braintrust.metadata', 'model')],
    inputTokens: [json('braintrust.metrics', 'prompt_tokens')],
    outputTokens: [json('braintrust.metrics', 'completion_tokens')],
    totalTokens: [json('braintrust.metrics', 'tokens')],
    cacheReadTokens: [json('braintrust.metrics', 'prompt_cached_tokens')],
  },
  inputMessages: (span) => normaliseMessageList(span.attributes['braintrust.input_json']),
  outputMessages: (span) => normaliseMessageList(span.attributes['braintrust.output_json'], 'assistant'),
};
