import { describe, expect, it } from 'vitest';
import { isSkip, type LLMCall } from '@mce/core';
import { CompletionTokens, Cost, PromptTokens, TotalTokens } from '../../src/metrics/deterministic/index.js';
import { GenaiPriceIndex, recordedCost } from '../../src/prices/index.js';
import { SessionBuilder, run, valueOf } from '../support/session-builder.js';

/** An LLM call with the span attributes the normaliser would have kept on it. */
function call(b: SessionBuilder, o: Parameters<SessionBuilder['llm']>[0], attributes: Record<string, unknown> = {}): LLMCall {
  const c = b.llm(o);
  c.attributes = attributes;
  return c;
}

/** Usage as the normaliser writes it for a span without any token count. */
function withoutUsage(c: LLMCall): LLMCall {
  c.usage = { ...c.usage, reported: false };
  return c;
}

describe('Cost price sources', () => {
  it('prices any-agent OPENAI (mistral/mistral-small-latest) from genai-prices at list price, about what the framework recorded', async () => {
    // The three call_llm spans of mozilla-ai/any-agent tests/assets/OPENAI_trace.json, with their recorded costs.
    const b = new SessionBuilder();
    const spans = [
      [269, 16, '2.69e-05', '4.8e-06'],
      [359, 14, '3.59e-05', '4.2e-06'],
      [392, 46, '3.92e-05', '1.38e-05'],
    ] as const;
    const calls = spans.map(([input, output, inCost, outCost], i) =>
      call(
        b,
        { start: i, end: i + 1, requestModel: 'mistral/mistral-small-latest', usage: { inputTokens: input, outputTokens: output } },
        { 'gen_ai.usage.input_cost': inCost, 'gen_ai.usage.output_cost': outCost },
      ),
    );
    const first = await valueOf(Cost, 'LLMCall', calls[0]!, b.session);
    expect(first.details).toMatchObject({ source: 'genai-prices', priceKey: 'mistral/mistral-small-latest', matchedBy: 'mistral-small-latest', fallback: false });
    // 0.1 USD / M input, 0.3 USD / M output: 269·1e-7 + 16·3e-7.
    expect(first.value).toBeCloseTo(3.17e-5, 15);
    expect(first.reasoning).toBe("LLM call to 'mistral/mistral-small-latest', priced as 'mistral/mistral-small-latest' from genai-prices (mistral-small-latest).");
    const session = await valueOf(Cost, 'Session', b.session, b.session);
    // 1,020 input and 76 output tokens: 1.02e-4 + 2.28e-5 = 1.248e-4 (the framework recorded the same; gpt-4o: 3.31e-3).
    expect(session.value).toBeCloseTo(1.248e-4, 15);
    const recorded = spans.reduce((sum, [, , i, o]) => sum + Number(i) + Number(o), 0);
    expect(session.value).toBeCloseTo(recorded, 15);
    expect(session.details).toEqual({
      models: {
        'mistral/mistral-small-latest': expect.objectContaining({ calls: 3, inputTokens: 1020, outputTokens: 76, source: 'genai-prices', fallback: false }),
      },
    });
  });

  it('resolves provider paths, routers, Bedrock and Vertex ids to their entries', () => {
    const index = new GenaiPriceIndex();
    // Microsoft Agent Framework sample: the response model is Fireworks' own id; the request names the router's provider.
    expect(index.lookup('accounts/fireworks/models/gpt-oss-20b', 'openai/gpt-oss-20b:fireworks-ai', {})?.key).toBe('fireworks/gpt-oss-20b');
    expect(index.lookup(undefined, 'openai/gpt-oss-20b:fireworks-ai', {})?.key).toBe('fireworks/gpt-oss-20b');
    expect(index.lookup(undefined, 'openrouter/meta-llama/llama-3.1-8b-instruct', {})?.key).toBe('openrouter/meta-llama/llama-3.1-8b-instruct');
    expect(index.lookup(undefined, 'anthropic.claude-3-5-sonnet-20240620-v1:0', { provider: 'aws.bedrock' })?.price).toMatchObject({ input_mtok: 3, output_mtok: 15 });
    expect(index.lookup(undefined, 'claude-3-5-sonnet-v2@20241022', { provider: 'gcp.vertex_ai' })?.key).toBe('google/claude-3-5-sonnet');
    // The provider from server.address when the span names none.
    expect(index.lookup(undefined, 'llama-3.3-70b-versatile', { serverAddress: 'api.groq.com' })?.key).toBe('groq/llama-3.3-70b-versatile');
    expect(index.lookup(undefined, 'unknown', {})).toBeUndefined();
    // The server the call went to outranks the client's provider name (the OpenAI client talking to Fireworks).
    expect(index.lookup(undefined, 'gpt-oss-20b', { provider: 'openai', serverAddress: 'https://api.fireworks.ai/inference/v1' })?.key).toBe(
      'fireworks/gpt-oss-20b',
    );
  });

  it('prices a Fireworks gpt-oss call at the Fireworks price, not like gpt-4o', async () => {
    const b = new SessionBuilder();
    const c = call(b, {
      start: 0,
      end: 1,
      requestModel: 'openai/gpt-oss-20b:fireworks-ai',
      responseModel: 'accounts/fireworks/models/gpt-oss-20b',
      usage: { inputTokens: 1000, outputTokens: 500 },
    });
    const r = await valueOf(Cost, 'LLMCall', c, b.session);
    // 0.07 USD / M input, 0.3 USD / M output.
    expect(r.value).toBeCloseTo(7e-5 + 1.5e-4, 15);
    expect(r.details).toMatchObject({ source: 'genai-prices', priceKey: 'fireworks/gpt-oss-20b' });
  });

  it('takes the cost recorded on the span for a model no table knows, before the gpt-4o fallback', async () => {
    const b = new SessionBuilder();
    const total = call(b, { start: 0, end: 1, requestModel: 'acme-private-7b', usage: { inputTokens: 10, outputTokens: 5 } }, { 'gen_ai.usage.cost': 0.0042 });
    const langfuse = call(b, { start: 1, end: 2, requestModel: 'acme-private-7b', usage: { inputTokens: 10, outputTokens: 5 } }, {
      'langfuse.observation.cost_details': JSON.stringify({ input: 0.001, output: 0.002 }),
    });
    const operation = call(b, { start: 2, end: 3, requestModel: 'acme-private-7b', usage: { inputTokens: 1, outputTokens: 1 } }, { 'operation.cost': '0.5' });
    const none = call(b, { start: 3, end: 4, requestModel: 'acme-private-7b', usage: { inputTokens: 1000, outputTokens: 100 } });
    expect(await valueOf(Cost, 'LLMCall', total, b.session)).toMatchObject({ value: 0.0042, details: { source: 'recorded', priceKey: 'gen_ai.usage.cost' } });
    const lf = await valueOf(Cost, 'LLMCall', langfuse, b.session);
    expect(lf.value).toBeCloseTo(0.003, 15);
    expect(lf.details).toMatchObject({ source: 'recorded', priceKey: 'langfuse.observation.cost_details', uncachedInputCost: 0.001, outputCost: 0.002 });
    expect((await valueOf(Cost, 'LLMCall', operation, b.session)).value).toBe(0.5);
    const fallback = await valueOf(Cost, 'LLMCall', none, b.session);
    expect(fallback.value).toBeCloseTo(1000 * 2.5e-6 + 100 * 1e-5, 15);
    expect(fallback.details).toMatchObject({ source: 'gpt-4o-fallback', fallback: true });
  });

  it('reads recorded costs as numbers or numeric strings, and refuses what is no amount', () => {
    expect(recordedCost({ 'gen_ai.usage.input_cost': '2.69e-05', 'gen_ai.usage.output_cost': '4.8e-06' })).toEqual({
      total: 2.69e-5 + 4.8e-6,
      input: 2.69e-5,
      output: 4.8e-6,
      attribute: 'gen_ai.usage.input_cost/output_cost',
    });
    expect(recordedCost({ 'gen_ai.usage.cost': '-1' })).toBeUndefined();
    expect(recordedCost({ 'gen_ai.usage.cost': 'n/a' })).toBeUndefined();
    expect(recordedCost({ 'langfuse.observation.cost_details': '{not json' })).toBeUndefined();
    expect(recordedCost({ 'langfuse.observation.cost_details': '{"input":0.1,"output":0.2,"total":0.3}' })).toMatchObject({ total: 0.3 });
  });
});

describe('usage not reported', () => {
  function session() {
    const b = new SessionBuilder();
    const a = b.agent('writer', { start: 0, end: 10 });
    const counted = call(b, { start: 0, end: 1, agent: a.id, requestModel: 'gpt-4o', usage: { inputTokens: 100, outputTokens: 10 } });
    const silent = withoutUsage(call(b, { start: 1, end: 2, agent: a.id, requestModel: 'gpt-4o' }));
    const idle = b.agent('reader', { start: 10, end: 20 });
    const silentOnly = withoutUsage(call(b, { start: 11, end: 12, agent: idle.id, requestModel: 'gpt-4o' }));
    return { b, a, idle, counted, silent, silentOnly };
  }

  it('skips the token and cost results of a call without token counts, never a 0', async () => {
    const { b, silent } = session();
    for (const metric of [PromptTokens, CompletionTokens, TotalTokens, Cost]) {
      const outcome = await run(metric, 'LLMCall', silent, b.session);
      expect(outcome).toEqual({ skipped: 'usage not reported: the trace records no token count for this LLM call' });
    }
  });

  it('sums the calls that reported usage and says how many did not', async () => {
    const { b, a, idle } = session();
    const tokens = await valueOf(PromptTokens, 'Session', b.session, b.session);
    expect(tokens.value).toBe(100);
    expect(tokens.reasoning).toBe('Prompt tokens (input, cached included) summed over 1 LLM call(s): 100; 2 LLM call(s) without usage reported, not counted.');
    expect(tokens.details).toEqual({ llmCalls: 3, callsWithoutUsage: 2 });
    const cost = await valueOf(Cost, 'AgentCall', a, b.session);
    expect(cost.value).toBeCloseTo(100 * 2.5e-6 + 10 * 1e-5, 15);
    expect(cost.reasoning).toMatch(/over 1 LLM call\(s\) of 1 model\(s\); 1 LLM call\(s\) without usage reported, not counted\.$/);
    expect(cost.details).toMatchObject({ callsWithoutUsage: 1 });
    // An agent none of whose calls reported usage has no sum to give.
    for (const metric of [TotalTokens, Cost]) {
      const outcome = await run(metric, 'AgentCall', idle, b.session);
      expect(isSkip(outcome) && outcome.skipped).toBe('usage not reported by any of its 1 LLM call(s)');
    }
  });

  it('prices a call without token counts by the cost its span recorded', async () => {
    const b = new SessionBuilder();
    const c = withoutUsage(call(b, { start: 0, end: 1, requestModel: 'gpt-4o' }, { 'gen_ai.usage.cost': 0.25 }));
    expect(await valueOf(Cost, 'LLMCall', c, b.session)).toMatchObject({ value: 0.25, details: { source: 'recorded' } });
    expect(await run(TotalTokens, 'LLMCall', c, b.session)).toMatchObject({ skipped: expect.stringMatching(/^usage not reported/) });
  });
});
