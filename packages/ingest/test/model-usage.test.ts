import { describe, expect, it } from 'vitest';
import { readSessions } from '../src/index.js';
import { tempFiles } from './helpers.js';

const file = tempFiles('mce-model-usage');
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

/** One trace of chat spans with the given attributes. */
function trace(spans: Array<Array<{ key: string; value: unknown }>>): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'models')] },
        scopeSpans: [
          {
            scope: { name: 't' },
            spans: spans.map((attributes, i) => ({
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: `b7ad6b71692033${String(i).padStart(2, '0')}`,
              name: 'chat',
              kind: 'SPAN_KIND_CLIENT',
              startTimeUnixNano: String(1764576000000000000 + i * 1e9),
              endTimeUnixNano: String(1764576000500000000 + i * 1e9),
              attributes: [str('gen_ai.operation.name', 'chat'), ...attributes],
            })),
          },
        ],
      },
    ],
  });
}

async function llmCalls(spans: Parameters<typeof trace>[0]) {
  const read = await readSessions([file(trace(spans))], {});
  return read.sessions[0]!.llmCalls;
}

describe('model names that name no model', () => {
  it('unknown / empty falls back to ls_model_name, then the request URL; a real name is kept', async () => {
    const calls = await llmCalls([
      [str('gen_ai.request.model', 'unknown'), str('ioa_observe.association.properties.ls_model_name', 'gpt-4o-mini'), int('gen_ai.usage.input_tokens', 5)],
      [str('gen_ai.request.model', ''), str('url.full', 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent'), int('gen_ai.usage.input_tokens', 5)],
      [str('gen_ai.request.model', 'None'), str('http.url', 'https://my.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-06-01'), int('gen_ai.usage.input_tokens', 5)],
      [str('gen_ai.request.model', 'unknown'), str('gen_ai.response.model', 'claude-haiku-4-5'), int('gen_ai.usage.input_tokens', 5)],
      [str('gen_ai.request.model', 'mistral/mistral-small-latest'), str('ls_model_name', 'other'), int('gen_ai.usage.input_tokens', 5)],
      [str('gen_ai.request.model', 'unknown'), int('gen_ai.usage.input_tokens', 5)],
    ]);
    expect(calls.map((c) => [c.requestModel, c.responseModel])).toEqual([
      ['gpt-4o-mini', undefined],
      ['gemini-2.0-flash', undefined],
      ['gpt-4o-prod', undefined],
      [undefined, 'claude-haiku-4-5'],
      ['mistral/mistral-small-latest', undefined],
      [undefined, undefined],
    ]);
  });
});

describe('usage not reported', () => {
  it('a span without any token count is marked as such; one that reports 0 is not', async () => {
    const calls = await llmCalls([
      [str('gen_ai.request.model', 'gpt-4o')],
      [str('gen_ai.request.model', 'gpt-4o'), int('gen_ai.usage.input_tokens', 0), int('gen_ai.usage.output_tokens', 0)],
      [str('gen_ai.request.model', 'gpt-4o'), int('gen_ai.usage.output_tokens', 7)],
    ]);
    expect(calls.map((c) => c.usage)).toEqual([
      { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0, reported: false },
      { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 },
      { inputTokens: 0, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 7 },
    ]);
  });
});
