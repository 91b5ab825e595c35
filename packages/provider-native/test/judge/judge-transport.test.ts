import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Judge,
  RequestLimiter,
  backoffMs,
  judgeConfigFromEnv,
  pricingFrom,
  resetLogprobSupport,
  PriceTable,
  loadCommittedPrices,
} from '@mce/provider-native';
import { isTransientError } from '@mce/core';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';

// Each test its own server: the concurrency limiter is process-wide per endpoint.
let server: ScriptedLLMServer;
beforeEach(async () => {
  resetLogprobSupport();
  server = await startScriptedLLMServer();
});
afterEach(() => server.close());

function judge(env: Record<string, string> = {}, model = 'gpt-4o'): Judge {
  const config = judgeConfigFromEnv({
    LLM_MODEL_NAME: model,
    OPENAI_API_KEY: 'test-key',
    LLM_BASE_MODEL_URL_MCE: server.url,
    MCE_JUDGE_RETRY_BASE_MS: '1',
    MCE_JUDGE_LOGPROBS: 'false',
    ...env,
  });
  return new Judge(config, { pricing: pricingFrom(() => table) });
}
const table = new PriceTable(loadCommittedPrices, 'committed');
const ask = (j: Judge) => j.score({ rubric: 'r', prompt: 'p' });

describe('retries', () => {
  it('honours Retry-After on a 429 and then succeeds', async () => {
    server.setScript([
      { status: 429, headers: { 'retry-after': '1' }, error: { message: 'slow down' } },
      { text: 'Score: 4' },
    ]);
    const result = await ask(judge());
    expect(result.value).toBe(0.75);
    expect(server.requests).toHaveLength(2);
    const gap = (server.requests[1]?.at ?? 0) - (server.requests[0]?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(950);
  });

  it('retries 5xx up to MCE_JUDGE_MAX_RETRIES and then fails naming the endpoint', async () => {
    server.setScript([], { status: 503, error: { message: 'overloaded' } });
    await expect(ask(judge({ MCE_JUDGE_MAX_RETRIES: '2' }))).rejects.toThrow(
      new RegExp(`judge request to ${server.url.replace(/[.]/g, '\\.')} failed after 3 call\\(s\\)`),
    );
    expect(server.requests).toHaveLength(3);
  });

  it('says an endpoint that stayed unavailable or unreachable is transient (a later attempt may succeed)', async () => {
    server.setScript([], { status: 503, error: { message: 'overloaded' } });
    const overloaded = await ask(judge({ MCE_JUDGE_MAX_RETRIES: '1' })).catch((e: unknown) => e);
    expect(isTransientError(overloaded)).toBe(true);
    const closed = await startScriptedLLMServer();
    const url = closed.url;
    await closed.close(); // nothing listens on that port now: connection refused
    const refused = await new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: url, MCE_JUDGE_MAX_RETRIES: '0' }))
      .score({ rubric: 'r', prompt: 'p' })
      .catch((e: unknown) => e);
    expect(String(refused)).toMatch(/JudgeRequestError: judge request to .* failed after 1 call\(s\): Connection error/);
    expect(isTransientError(refused)).toBe(true);
    // Credentials in the endpoint URL never reach the message (it ends up in results' errors, logs and REST answers).
    const secret = new URL(url);
    secret.username = 'proxyuser';
    secret.password = 'ProxyPassw0rd';
    secret.searchParams.set('api-key', 'AZUREKEY123');
    const masked = await new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: secret.toString(), MCE_JUDGE_MAX_RETRIES: '0' }))
      .score({ rubric: 'r', prompt: 'p' })
      .catch((e: unknown) => e);
    expect(String(masked)).toContain('proxyuser:***@');
    expect(String(masked)).toContain('api-key=***');
    expect(String(masked)).not.toMatch(/ProxyPassw0rd|AZUREKEY123/);
  });

  it('does not retry a 400 that is not about log-probabilities', async () => {
    server.setScript([{ status: 400, error: { message: 'bad model' } }, { text: 'Score: 4' }]);
    const refused = await ask(judge()).catch((e: unknown) => e);
    expect(String(refused)).toMatch(/bad model/);
    expect(isTransientError(refused)).toBe(false); // a refused request is not an outage
    expect(server.requests).toHaveLength(1);
  });

  it('a 200 reply that is not a chat completion (an HTML page) fails naming the endpoint, not as a TypeError', async () => {
    server.setScript([{ rawBody: '<html><body>Sign in to the proxy</body></html>' }, { rawBody: '{"status":"ok"}', contentType: 'application/json' }]);
    for (const got of ['<html><body>Sign in to the proxy</body></html>', '{"status":"ok"}']) {
      const failure = await ask(judge()).catch((e: unknown) => e);
      expect((failure as Error).name).toBe('JudgeReplyError');
      expect((failure as Error).message).toBe(
        `the endpoint ${server.url} did not answer with a chat completion (got ${got}); is it an OpenAI-compatible API?`,
      );
      expect(isTransientError(failure)).toBe(false);
    }
    expect(server.requests).toHaveLength(2);
  });

  it('times a request out, retries it, and fails when retries are exhausted', async () => {
    server.setScript([{ latencyMs: 2000, text: 'Score: 1' }, { text: 'Score: 5' }]);
    expect((await ask(judge({ MCE_JUDGE_TIMEOUT_SECONDS: '0.2' }))).value).toBe(1);
    server.setScript([], { latencyMs: 2000, text: 'Score: 1' });
    const started = Date.now();
    await expect(ask(judge({ MCE_JUDGE_TIMEOUT_SECONDS: '0.2', MCE_JUDGE_MAX_RETRIES: '0' }))).rejects.toThrow(/timed out/i);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('backs off exponentially with full jitter, capped', () => {
    const options = { retryBaseMs: 100, retryMaxMs: 1000, random: () => 0.5 };
    expect([0, 1, 2, 3, 4].map((a) => backoffMs(a, new Error('x'), options))).toEqual([50, 100, 200, 400, 500]);
  });
});

describe('limits', () => {
  it('keeps at most MCE_JUDGE_CONCURRENCY requests in flight', async () => {
    server.setScript([], { latencyMs: 40, text: 'Score: 3' });
    const j = judge({ MCE_JUDGE_CONCURRENCY: '3' });
    const other = judge({ MCE_JUDGE_CONCURRENCY: '3' }); // a second judge on the endpoint shares the limit
    await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 ? j : other)));
    expect(server.requests).toHaveLength(12);
    expect(server.maxConcurrent).toBe(3);
  });

  it('keeps to a requests-per-window limit', async () => {
    const limiter = new RequestLimiter({ concurrency: 10, requestsPerMinute: 2, windowMs: 300 });
    const starts: number[] = [];
    const t0 = Date.now();
    await Promise.all([1, 2, 3].map(() => limiter.run(0, async () => void starts.push(Date.now() - t0))));
    starts.sort((a, b) => a - b);
    expect(starts[1]).toBeLessThan(150);
    expect(starts[2]).toBeGreaterThanOrEqual(290);
  });

  it('keeps to a tokens-per-window limit', async () => {
    const limiter = new RequestLimiter({ concurrency: 10, tokensPerMinute: 1000, windowMs: 300 });
    const starts: number[] = [];
    const t0 = Date.now();
    await Promise.all([600, 300, 400].map((n) => limiter.run(n, async () => void starts.push(Date.now() - t0))));
    expect(starts[0]).toBeLessThan(150);
    expect(starts[1]).toBeLessThan(150);
    expect(starts[2]).toBeGreaterThanOrEqual(290);
  });
});

describe('usage and cost', () => {
  it('sums every call of a computation and prices it from the price table', async () => {
    // gpt-4o-mini: 1.5e-7 per input token, 7.5e-8 per cached input token, 6e-7 per output token.
    server.setScript([
      { status: 500 },
      { text: 'Score: 4', usage: { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 200 } } },
      { text: 'Score: 2', usage: { prompt_tokens: 800, completion_tokens: 40, total_tokens: 840 } },
    ]);
    const result = await ask(judge({ MCE_JUDGE_SAMPLES: '2', MCE_JUDGE_CONCURRENCY: '1' }, 'gpt-4o-mini'));
    expect(result.usage).toMatchObject({ model: 'gpt-4o-mini', promptTokens: 1800, completionTokens: 90, totalTokens: 1890 });
    // (1800 − 200)·1.5e-7 + 200·7.5e-8 + 90·6e-7 = 2.4e-4 + 1.5e-5 + 5.4e-5
    expect(result.usage.costUsd).toBeCloseTo(3.09e-4, 15);
    expect(result.value).toBe(0.5);
  });

  it('prices a model missing from the table like gpt-4o', async () => {
    server.setScript([{ text: 'Score: 5', usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } }]);
    const result = await ask(judge({}, 'my-local-llm'));
    // 1000·2.5e-6 + 100·1e-5
    expect(result.usage.costUsd).toBeCloseTo(0.0035, 15);
    expect(result.usage.model).toBe('my-local-llm');
  });

  it('keeps a valid judgement whose usage reports only some counts, taking the rest from the total', async () => {
    server.setScript([
      { text: 'Score: 4', usage: { total_tokens: 50 } },
      { text: 'Score: 4', usage: { completion_tokens: 10, total_tokens: 110 } },
      { text: 'Score: 4', usage: { prompt_tokens: 10, total_tokens: 15 } },
    ]);
    const onlyTotal = await ask(judge({}, 'gpt-4o'));
    expect([onlyTotal.value, onlyTotal.usage.promptTokens, onlyTotal.usage.completionTokens, onlyTotal.usage.totalTokens]).toEqual([0.75, 50, 0, 50]);
    expect(onlyTotal.usage.costUsd).toBeCloseTo(50 * 2.5e-6, 15);
    const noPrompt = await ask(judge({}, 'gpt-4o'));
    expect([noPrompt.usage.promptTokens, noPrompt.usage.completionTokens]).toEqual([100, 10]);
    // No completion count: it is what the total leaves after the prompt, 15 − 10 = 5 (not the whole total).
    const noCompletion = await ask(judge({}, 'gpt-4o'));
    expect([noCompletion.usage.promptTokens, noCompletion.usage.completionTokens, noCompletion.usage.totalTokens]).toEqual([10, 5, 15]);
    expect(noCompletion.usage.costUsd).toBeCloseTo(10 * 2.5e-6 + 5 * 1e-5, 15);
  });
});

describe('an endpoint echoing the API key', () => {
  const KEY = 'sk-echoed-secret-123456';
  it('has the key written *** in the error, its cause, the reasoning and a reply excerpt', async () => {
    server.setScript([{ status: 401, error: { message: `Incorrect API key provided: ${KEY}` } }]);
    const failure = (await ask(judge({ OPENAI_API_KEY: KEY })).catch((e: unknown) => e)) as Error;
    expect(failure.message).toContain('Incorrect API key provided: ***');
    expect(`${failure.message} ${(failure.cause as Error).message}`).not.toContain(KEY);

    server.setScript([{ text: `You sent ${KEY}.\nScore: 4` }]);
    const scored = await ask(judge({ OPENAI_API_KEY: KEY }));
    expect([scored.value, scored.reasoning]).toEqual([0.75, 'You sent ***.']);

    server.setScript([{ text: `no score, key ${KEY}` }]);
    const unparsed = (await ask(judge({ OPENAI_API_KEY: KEY })).catch((e: unknown) => e)) as Error & { reply: string };
    expect(`${unparsed.message} ${unparsed.reply}`).not.toContain(KEY);
  });
});
