import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallMeter, RequestLimiter, countingFetch, meteredOpenAI, Judge, judgeConfigFromEnv } from '@mce/provider-native';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';

let server: ScriptedLLMServer;
beforeAll(async () => {
  server = await startScriptedLLMServer();
});
afterAll(() => server.close());

const post = (f: typeof fetch, path: string, body: unknown) =>
  f(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('countingFetch', () => {
  it('records each call with the request model, its kind and the usage reported; the body still reads', async () => {
    server.setScript([
      { text: 'hi', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_tokens_details: { cached_tokens: 2 } } },
      { embedding: [1, 2], usage: { prompt_tokens: 5, total_tokens: 5 } },
      { status: 429, error: { message: 'slow down' } },
      { text: 'no usage', usage: null },
    ]);
    const meter = new CallMeter();
    const f = countingFetch(meter);
    const chat = await post(f, '/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
    expect(((await chat.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('hi');
    await post(f, '/embeddings', { model: 'text-embedding-3-small', input: 'x' });
    expect((await post(f, '/chat/completions', { model: 'gpt-4o-mini', messages: [] })).status).toBe(429);
    await post(f, '/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    expect(meter.calls).toEqual([
      { model: 'gpt-4o-mini', kind: 'chat', status: 200, usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10, cachedPromptTokens: 2 }, usageReported: true },
      { model: 'text-embedding-3-small', kind: 'embedding', status: 200, usage: { promptTokens: 5, completionTokens: 0, totalTokens: 5, cachedPromptTokens: 0 }, usageReported: true },
      { model: 'gpt-4o-mini', kind: 'chat', status: 429, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedPromptTokens: 0 }, usageReported: true },
      { model: 'gpt-4o-mini', kind: 'chat', status: 200, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedPromptTokens: 0 }, usageReported: false },
    ]);
    expect(meter.usageReported()).toBe(false);
    // Each model at its own price; tokens summed over all calls.
    const price = (model: string, u: { promptTokens: number; completionTokens: number }) => (model === 'gpt-4o-mini' ? u.promptTokens + 10 * u.completionTokens : 100 * u.promptTokens);
    expect(meter.evaluation('gpt-4o-mini', price)).toEqual({ model: 'gpt-4o-mini', promptTokens: 12, completionTokens: 3, totalTokens: 15, costUsd: 7 + 30 + 500 });
  });

  it('waits for the limiter: no more calls in flight than it allows', async () => {
    server.setScript(() => ({ text: 'ok', latencyMs: 30 }));
    const f = countingFetch(new CallMeter(), { limiter: new RequestLimiter({ concurrency: 2 }) });
    await Promise.all(Array.from({ length: 6 }, () => post(f, '/chat/completions', { model: 'm', messages: [] }).then((r) => r.text())));
    expect(server.maxConcurrent).toBe(2);
  });

  it('meteredOpenAI: the judge endpoint and key, and every retry counted', async () => {
    server.setScript([{ status: 500, error: { message: 'boom' } }, { text: 'fine' }]);
    const judge = new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-test', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_MAX_RETRIES: '1', MCE_JUDGE_RETRY_BASE_MS: '1' }));
    const meter = new CallMeter();
    const reply = await meteredOpenAI(judge, meter).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
    expect(reply.choices[0]?.message.content).toBe('fine');
    expect(meter.calls.map((c) => c.status)).toEqual([500, 200]);
    expect(meter.total().totalTokens).toBe(120);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });
});

describe('countingFetch and the computation\'s signal', () => {
  it('aborts a request in flight and refuses new ones once the signal fires', async () => {
    server.setScript(() => ({ text: 'late', latencyMs: 2000 }));
    const controller = new AbortController();
    const f = countingFetch(new CallMeter(), { signal: controller.signal });
    const pending = post(f, '/chat/completions', { model: 'm', messages: [] });
    setTimeout(() => controller.abort(new Error('metric timeout')), 20);
    await expect(pending).rejects.toThrow();
    await expect(post(f, '/chat/completions', { model: 'm', messages: [] })).rejects.toThrow('metric timeout');
  });
});
