import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  Judge,
  JudgeReplyError,
  judgeConfigFromEnv,
  logprobScore,
  parseScore,
  reasoningOf,
  resetLogprobSupport,
} from '@mce/provider-native';
import { scoreTokens, startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';

let server: ScriptedLLMServer;
beforeAll(async () => {
  server = await startScriptedLLMServer();
});
afterAll(() => server.close());
beforeEach(() => resetLogprobSupport());

function judge(env: Record<string, string> = {}): Judge {
  const config = judgeConfigFromEnv({
    LLM_MODEL_NAME: 'gpt-4o',
    OPENAI_API_KEY: 'test-key',
    LLM_BASE_MODEL_URL_MCE: server.url,
    MCE_JUDGE_RETRY_BASE_MS: '1',
    ...env,
  });
  return new Judge(config, { pricing: () => 0 });
}
const rubric = '5: perfect\n1: useless';
const ask = (j: Judge = judge()) => j.score({ rubric, prompt: 'Q?', metric: 'TestMetric' });

describe('judge score from log-probabilities', () => {
  it('is the expectation over the digit probabilities: 4:0.6, 5:0.3, 3:0.1 → 4.2 → 0.8', async () => {
    server.setScript([{ text: 'Clear answer.\nScore: 4', logprobs: scoreTokens('Clear answer.', { ' 4': 0.6, ' 5': 0.3, ' 3': 0.1 }) }]);
    const result = await ask();
    expect(result.score).toBeCloseTo(4.2, 12);
    expect(result.value).toBeCloseTo(0.8, 12);
    expect(result.scoring).toBe('logprob');
    expect(result.reasoning).toBe('Clear answer.');
    const distribution = result.samples[0]?.distribution ?? {};
    expect(Object.keys(distribution).sort()).toEqual(['3', '4', '5']);
    expect(distribution['4']).toBeCloseTo(0.6, 12);
    const body = server.requests[0]?.body;
    expect(body?.logprobs).toBe(true);
    expect(body?.top_logprobs).toBe(20);
    expect(body?.temperature).toBe(0);
    expect(body?.model).toBe('gpt-4o');
    expect(body?.messages?.[0]?.content).toContain('5: perfect');
    expect(body?.messages?.[1]).toEqual({ role: 'user', content: 'Q?' });
  });

  it('sums duplicate and spaced digit tokens and renormalises over the digit mass', async () => {
    // 4: 0.45 + 0.15 = 0.6, 5: 0.2, non-digit 0.2 → mass 0.8, expected (2.4 + 1.0) / 0.8 = 4.25 → 0.8125
    const tokens = scoreTokens('Good.', { ' 4': 0.45, '4': 0.15, ' 5 ': 0.2, ' four': 0.2 });
    server.setScript([{ text: 'Good.\nScore: 4', logprobs: tokens }]);
    const result = await ask();
    expect(result.score).toBeCloseTo(4.25, 12);
    expect(result.value).toBeCloseTo(0.8125, 12);
  });

  it('reads the digit after the last Score: even when the reasoning holds digits and an earlier Score:', async () => {
    const reasoning = 'Step 2 of 3 failed; Score: 5 would be too generous.';
    const tokens = scoreTokens(reasoning, { ' 2': 0.8, ' 1': 0.2 });
    server.setScript([{ text: `${reasoning}\nScore: 2`, logprobs: tokens }]);
    const result = await ask();
    expect(result.score).toBeCloseTo(1.8, 12);
    expect(result.value).toBeCloseTo(0.2, 12);
  });

  it('finds the label split across tokens and a digit token carrying the colon', () => {
    const split = scoreTokens('ok', { '4': 0.5, '3': 0.5 }, { label: ['Sc', 'ore', ':', ' '] });
    expect(logprobScore(split)?.expected).toBeCloseTo(3.5, 12);
    const colon = scoreTokens('ok', { ': 4': 0.6, ': 5': 0.4 }, { label: ['**Score'] });
    expect(logprobScore(colon)?.expected).toBeCloseTo(4.4, 12);
  });

  it('counts the chosen digit even when the top alternatives leave it out', () => {
    // Sampled " 1" (p = 0.02) while the top alternatives list only " 4" and " 5".
    const tokens = scoreTokens('ok', { ' 4': 0.6, ' 5': 0.3 });
    const at = tokens.length - 1;
    tokens[at] = { ...tokens[at]!, token: ' 1', logprob: Math.log(0.02) };
    const r = logprobScore(tokens);
    expect(r?.distribution).toEqual({ 1: expect.closeTo(0.02, 12), 4: expect.closeTo(0.6, 12), 5: expect.closeTo(0.3, 12) });
    expect(r?.expected).toBeCloseTo((0.02 * 1 + 0.6 * 4 + 0.3 * 5) / 0.92, 12);
  });

  it('falls back to the parsed integer when the score position has no log-probabilities', async () => {
    const truncated = scoreTokens('Fine.', { ' 4': 0.6, ' 5': 0.4 }).slice(0, 2);
    server.setScript([{ text: 'Fine.\nScore: 4', logprobs: truncated }]);
    const result = await ask();
    expect(result.score).toBe(4);
    expect(result.value).toBe(0.75);
    expect(result.scoring).toBe('raw');
  });
});

describe('endpoints that reject log-probabilities', () => {
  it('drops them after an error naming them, calls again without, and remembers it', async () => {
    server.setScript([
      { rejectLogprobs: true, text: 'Correct.\nScore: 5' },
      { rejectLogprobs: true, text: 'Correct.\nScore: 5' },
      { rejectLogprobs: true, text: 'Partly.\nScore: 3' },
    ]);
    const j = judge();
    const first = await ask(j);
    expect(first).toMatchObject({ value: 1, score: 5, scoring: 'raw' });
    const second = await ask(j);
    expect(second).toMatchObject({ value: 0.5, scoring: 'raw' });
    expect(server.requests.map((r) => r.body.logprobs ?? null)).toEqual([true, null, null]);
    // usage: the rejected call returned none; two replies of 100 + 20 tokens
    expect(first.usage).toMatchObject({ promptTokens: 100, completionTokens: 20, totalTokens: 120 });
  });

  it('stops asking an endpoint that answers without them, using that answer', async () => {
    server.setScript([{ omitLogprobs: true, text: 'Score: 2' }, { text: 'Score: 4', logprobs: scoreTokens('', { ' 4': 1 }) }]);
    const j = judge();
    expect(await ask(j)).toMatchObject({ value: 0.25, scoring: 'raw' });
    expect(await ask(j)).toMatchObject({ value: 0.75, scoring: 'raw' });
    expect(server.requests.map((r) => r.body.logprobs ?? null)).toEqual([true, null]);
  });

  it('lowers top_logprobs to the cap an endpoint states', async () => {
    server.setScript([
      { status: 400, error: { message: 'top_logprobs must be <= 5', param: 'top_logprobs' } },
      { text: 'Score: 4', logprobs: scoreTokens('', { ' 4': 0.5, ' 3': 0.5 }) },
      { text: 'Score: 4', logprobs: scoreTokens('', { ' 4': 1 }) },
    ]);
    const j = judge();
    expect((await ask(j)).score).toBeCloseTo(3.5, 12);
    await ask(j);
    expect(server.requests.map((r) => r.body.top_logprobs)).toEqual([20, 5, 5]);
  });
});

describe('samples, temperature and failures', () => {
  it('averages N samples at temperature 0.7', async () => {
    server.setScript([{ text: 'a\nScore: 2' }, { text: 'b\nScore: 4' }, { text: 'c\nScore: 5' }]);
    const result = await ask(judge({ MCE_JUDGE_SAMPLES: '3', MCE_JUDGE_LOGPROBS: 'false' }));
    expect(result.score).toBeCloseTo(11 / 3, 12);
    expect(result.value).toBeCloseTo(2 / 3, 12);
    expect(result.scoring).toBe('sampled');
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.7, 0.7, 0.7]);
    expect(server.requests.every((r) => r.body.logprobs === undefined)).toBe(true);
    expect(result.usage.totalTokens).toBe(360);
  });

  it('averages the log-probability expectations of the samples', async () => {
    server.setScript([
      { text: 'a\nScore: 4', logprobs: scoreTokens('a', { ' 4': 0.6, ' 5': 0.3, ' 3': 0.1 }) }, // 4.2
      { text: 'b\nScore: 2', logprobs: scoreTokens('b', { ' 2': 0.5, ' 1': 0.5 }) }, // 1.5
    ]);
    const result = await ask(judge({ MCE_JUDGE_SAMPLES: '2' }));
    expect(result.scoring).toBe('sampled');
    expect(result.samples.map((s) => s.scoring)).toEqual(['logprob', 'logprob']);
    expect(result.score).toBeCloseTo((4.2 + 1.5) / 2, 12);
    expect(result.value).toBeCloseTo(((4.2 + 1.5) / 2 - 1) / 4, 12);
    expect(server.requests.map((r) => [r.body.temperature, r.body.logprobs])).toEqual([[0.7, true], [0.7, true]]);
  });

  it('sends MCE_JUDGE_TEMPERATURE when set', async () => {
    server.setScript([{ text: 'Score: 3' }, { text: 'Score: 3' }]);
    await ask(judge({ MCE_JUDGE_SAMPLES: '2', MCE_JUDGE_TEMPERATURE: '0.3' }));
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.3, 0.3]);
  });

  it('fails with a clear error when the reply has no Score: line, or a score outside 1–5', async () => {
    server.setScript([{ text: 'I think it is good.' }, { text: 'Score: 7' }]);
    await expect(ask()).rejects.toThrow(JudgeReplyError);
    await expect(ask()).rejects.toThrow(/TestMetric: the judge reply has no "Score: N" line/);
  });

  it('parses markdown and the last label', () => {
    expect(parseScore('**Score:** 4')).toBe(4);
    expect(parseScore('Score: 2\nOn reflection.\nscore: 3')).toBe(3);
    expect(parseScore('Score: 45')).toBeUndefined();
    expect(parseScore('Score: 4.5')).toBeUndefined();
    expect(parseScore('no label 4')).toBeUndefined();
  });

  it('the reasoning is the reply without every trailing Score: line, not just the last one', () => {
    expect(reasoningOf('Because X.\nScore: 2\nScore: 3')).toBe('Because X.');
    expect(reasoningOf('Reasoning: Because X.\nScore: 4')).toBe('Because X.');
  });

  it('reads a score on this scale only: not a fraction of another scale, not the scale restated as a range', () => {
    expect(['Score: 3/10', 'Score: 3 / 10', 'Score: 4/50', 'Score: 1-5', 'Score: 1 – 5'].map(parseScore)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(['Score: 3/5', 'Score: **4** / 5', 'Score: 5/5.', 'Score: 4 - mostly relevant', 'Score: 2, because'].map(parseScore)).toEqual([3, 4, 5, 4, 2]);
  });

  it('names the variables to set when no judge model is configured', async () => {
    const unconfigured = new Judge(judgeConfigFromEnv({}), { pricing: () => 0 });
    await expect(unconfigured.score({ rubric, prompt: 'x', metric: 'AnswerRelevancy' })).rejects.toThrow(
      /AnswerRelevancy: no LLM judge configured: set LLM_MODEL_NAME and OPENAI_API_KEY/,
    );
  });
});

describe('judgeConfigFromEnv', () => {
  it('reads every variable and rejects invalid values naming them', () => {
    const config = judgeConfigFromEnv({
      LLM_MODEL_NAME: 'm',
      OPENAI_API_KEY: 'k',
      LLM_BASE_MODEL_URL_MCE: 'http://x/v1',
      MCE_JUDGE_SAMPLES: '3',
      MCE_JUDGE_TEMPERATURE: '0.2',
      MCE_JUDGE_LOGPROBS: 'off',
      MCE_JUDGE_TOP_LOGPROBS: '5',
      MCE_JUDGE_TIMEOUT_SECONDS: '2.5',
      MCE_JUDGE_MAX_RETRIES: '1',
      MCE_JUDGE_CONCURRENCY: '16',
      MCE_JUDGE_REQUESTS_PER_MINUTE: '60',
      MCE_JUDGE_TOKENS_PER_MINUTE: '100000',
      MCE_JUDGE_MAX_TOKENS: '300',
      MCE_JUDGE_TRANSCRIPT_TOKENS: '4000',
    });
    expect(config).toMatchObject({
      model: 'm',
      apiKey: 'k',
      baseURL: 'http://x/v1',
      samples: 3,
      temperature: 0.2,
      logprobs: false,
      topLogprobs: 5,
      timeoutMs: 2500,
      maxRetries: 1,
      concurrency: 16,
      requestsPerMinute: 60,
      tokensPerMinute: 100000,
      maxTokens: 300,
      transcriptTokens: 4000,
    });
    expect(judgeConfigFromEnv({})).toMatchObject({ samples: 1, logprobs: true, topLogprobs: 20, concurrency: 8 });
    expect(judgeConfigFromEnv({}).temperature).toBeUndefined();
    expect(() => judgeConfigFromEnv({ MCE_JUDGE_SAMPLES: '0' })).toThrow(/MCE_JUDGE_SAMPLES=0/);
    expect(() => judgeConfigFromEnv({ MCE_JUDGE_LOGPROBS: 'maybe' })).toThrow(/MCE_JUDGE_LOGPROBS/);
  });
});
