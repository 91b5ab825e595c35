import { describe, expect, it } from 'vitest';
import type { AgentCall, LLMCall, MASCall, Session } from '@mce/core';
import { CompletionTokens, Cost, Duration, PromptTokens, TotalTokens, createCostMetric } from '../../src/metrics/deterministic/index.js';
import { PriceTable } from '../../src/prices/index.js';
import { SessionBuilder, contextFor, run, valueOf } from '../support/session-builder.js';
import { referenceSession } from '../support/reference-session.js';

const s = referenceSession();
const agent = (id: string) => s.agentCalls.find((c) => c.id === id) as AgentCall;
const llm = (id: string) => s.llmCalls.find((c) => c.id === id) as LLMCall;
const mas = s.masCalls[0] as MASCall;

describe('Duration', () => {
  it('is end − start for every call level', async () => {
    const m = await valueOf(Duration, 'MASCall', mas, s);
    expect(m.value).toBe(995);
    expect(m.reasoning).toBe('End time minus start time of the MASCall, in ms.');
    expect((await valueOf(Duration, 'AgentCall', agent('a1'), s)).value).toBe(490);
    expect((await valueOf(Duration, 'LLMCall', llm('l2'), s)).value).toBe(300);
    expect((await valueOf(Duration, 'ToolCall', s.toolCalls[2]!, s)).value).toBe(4);
    const task = new SessionBuilder().task('plan', { start: 1.25, end: 3.75 });
    expect((await valueOf(Duration, 'TaskCall', task, s)).value).toBe(2.5);
  });

  it('for a Session spans its elements (earliest start 5 to latest end 1000), not its own 0..5000', async () => {
    const r = await valueOf(Duration, 'Session', s, s);
    expect(r.value).toBe(995);
    expect(r.reasoning).toBe("Earliest start to latest end of the session's 10 elements: 995 ms.");
  });

  it('for a Session without elements falls back to its own times', async () => {
    const empty = new SessionBuilder('empty', { start: 100, end: 350 }).build();
    const r = await valueOf(Duration, 'Session', empty, empty);
    expect(r.value).toBe(250);
    expect(r.reasoning).toMatch(/no elements/);
  });

  it('for a Session leaves out an element without valid times, and says so', async () => {
    const b = new SessionBuilder('s', { start: 0, end: 0 });
    b.tool('x', { start: 10, end: 30 });
    b.tool('y', { start: Number.NaN, end: 500 });
    b.llm({ start: 20, end: 60 });
    const r = await valueOf(Duration, 'Session', b.session, b.session);
    expect(r.value).toBe(50);
    expect(r.details).toEqual({ elements: 2, ignored: 1 });
    expect(r.reasoning).toBe("Earliest start to latest end of the session's 2 elements (1 element(s) without valid times left out): 50 ms.");
  });

  it('fails on a call that ends before it starts or has no valid times', () => {
    const b = new SessionBuilder();
    const backwards = b.tool('x', { id: 'back', start: 10, end: 5 });
    const nan = b.tool('x', { id: 'nan', start: Number.NaN, end: 5 });
    expect(() => Duration.compute(backwards, contextFor(b.session, 'ToolCall'))).toThrow(/ToolCall back: ends before it starts/);
    expect(() => Duration.compute(nan, contextFor(b.session, 'ToolCall'))).toThrow(/finite/);
  });

  it('is 0 for a zero-length call (start = end): only end < start is backwards', async () => {
    const b = new SessionBuilder();
    const instant = b.tool('x', { id: 'instant', start: 7, end: 7 });
    const r = await valueOf(Duration, 'ToolCall', instant, b.session);
    expect(r.value).toBe(0);
    expect(r.reasoning).toBe('End time minus start time of the ToolCall, in ms.');
  });
});

describe('PromptTokens / CompletionTokens / TotalTokens', () => {
  it('read an LLM call\'s usage', async () => {
    const prompt = await valueOf(PromptTokens, 'LLMCall', llm('l2'), s);
    expect(prompt.value).toBe(2000);
    expect(prompt.reasoning).toBe('Prompt tokens (input, cached included) reported by the LLM call.');
    expect((await valueOf(CompletionTokens, 'LLMCall', llm('l2'), s)).value).toBe(200);
    expect((await valueOf(TotalTokens, 'LLMCall', llm('l2'), s)).value).toBe(2200);
  });

  it('sum the LLM calls of an AgentCall, a MASCall and the Session', async () => {
    expect((await valueOf(PromptTokens, 'AgentCall', agent('a1'), s)).value).toBe(1000);
    expect((await valueOf(PromptTokens, 'AgentCall', agent('b1'), s)).value).toBe(2000);
    expect((await valueOf(PromptTokens, 'MASCall', mas, s)).value).toBe(3100);
    expect((await valueOf(CompletionTokens, 'Session', s, s)).value).toBe(310);
    const total = await valueOf(TotalTokens, 'Session', s, s);
    expect(total.value).toBe(3410);
    expect(total.reasoning).toBe('Total tokens (as reported, else input + output) summed over 3 LLM call(s): 3410.');
  });

  it('use the reported total when it differs from input + output (reasoning tokens)', async () => {
    const b = new SessionBuilder();
    const call = b.llm({ start: 0, end: 1, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 40 } });
    expect((await valueOf(TotalTokens, 'LLMCall', call, b.session)).value).toBe(40);
  });

  it('are 0 for an agent call with no LLM call', async () => {
    const b = new SessionBuilder();
    const a = b.agent('idle', { start: 0, end: 1 });
    const r = await valueOf(PromptTokens, 'AgentCall', a, b.session);
    expect(r.value).toBe(0);
  });

  it('fail rather than produce NaN when a count is NaN', () => {
    const b = new SessionBuilder();
    const good = b.llm({ start: 0, end: 1, usage: { inputTokens: 5, outputTokens: 5 } });
    const bad = b.llm({ id: 'bad', start: 0, end: 1, usage: { inputTokens: Number.NaN, outputTokens: 5 } });
    const ctx = (level: 'Session' | 'LLMCall') => contextFor(b.session, level);
    expect(PromptTokens.compute(good, ctx('LLMCall'))).toMatchObject({ value: 5 });
    expect(() => PromptTokens.compute(bad, ctx('LLMCall'))).toThrow('LLMCall bad: usage.inputTokens is not a non-negative number (NaN)');
    expect(() => PromptTokens.compute(b.session, ctx('Session'))).toThrow(/LLMCall bad/);
    expect(() => Cost.compute(b.session, ctx('Session'))).toThrow(/LLMCall bad/);
  });

  it('fail on an infinite count: Infinity is not a usable token count', () => {
    const b = new SessionBuilder();
    const inf = b.llm({ id: 'inf', start: 0, end: 1, usage: { inputTokens: Infinity, outputTokens: 5, totalTokens: 5 } });
    const ctx = (level: 'Session' | 'LLMCall') => contextFor(b.session, level);
    expect(() => PromptTokens.compute(inf, ctx('LLMCall'))).toThrow('LLMCall inf: usage.inputTokens is not a non-negative number (Infinity)');
    expect(() => PromptTokens.compute(b.session, ctx('Session'))).toThrow('LLMCall inf: usage.inputTokens is not a non-negative number (Infinity)');
    // Only the invalid field fails.
    expect(CompletionTokens.compute(b.session, ctx('Session'))).toMatchObject({ value: 5 });
  });

  it('fail the total sum on an invalid total even when input and output are valid', () => {
    const b = new SessionBuilder();
    b.llm({ id: 'badtotal', start: 0, end: 1, usage: { inputTokens: 5, outputTokens: 5, totalTokens: -1 } });
    const ctx = contextFor(b.session, 'Session');
    expect(() => TotalTokens.compute(b.session, ctx)).toThrow('LLMCall badtotal: usage.totalTokens is not a non-negative number (-1)');
    // The valid fields of the same call are still summed.
    expect(PromptTokens.compute(b.session, ctx)).toMatchObject({ value: 5 });
    expect(CompletionTokens.compute(b.session, ctx)).toMatchObject({ value: 5 });
  });

  it('fail only the sums that include the invalid call, and only for the invalid field', () => {
    const b = new SessionBuilder();
    const good = b.agent('good', { start: 0, end: 10 });
    const bad = b.agent('bad', { start: 10, end: 20 });
    b.llm({ start: 1, end: 2, agent: good.id, usage: { inputTokens: 7, outputTokens: 3 } });
    b.llm({ id: 'neg', start: 11, end: 12, agent: bad.id, usage: { inputTokens: -1, outputTokens: 4, totalTokens: 4 } });
    const ctx = (level: 'Session' | 'AgentCall') => contextFor(b.session, level);
    expect(PromptTokens.compute(good, ctx('AgentCall'))).toMatchObject({ value: 7 });
    expect(() => PromptTokens.compute(bad, ctx('AgentCall'))).toThrow('LLMCall neg: usage.inputTokens is not a non-negative number (-1)');
    expect(CompletionTokens.compute(bad, ctx('AgentCall'))).toMatchObject({ value: 4 });
    expect(CompletionTokens.compute(b.session, ctx('Session'))).toMatchObject({ value: 7 });
    expect(TotalTokens.compute(b.session, ctx('Session'))).toMatchObject({ value: 14 });
  });

  it('refuse a level they are not defined at', () => {
    expect(() => PromptTokens.compute(s.toolCalls[0]!, contextFor(s, 'ToolCall'))).toThrow(
      'PromptTokens is not defined at the ToolCall level',
    );
  });
});

describe('Cost', () => {
  it('prices an LLM call found in the table', async () => {
    // 1000·2.5e-6 + 100·1e-5
    const r = await valueOf(Cost, 'LLMCall', llm('l1'), s);
    expect(r.value).toBeCloseTo(0.0035, 15);
    expect(r.details).toMatchObject({ model: 'gpt-4o', priceKey: 'gpt-4o', matchedBy: 'responseModel', fallback: false });
    expect(r.reasoning).toBe("LLM call to 'gpt-4o', priced as 'gpt-4o' from the LiteLLM table (responseModel).");
  });

  it('prices an unknown model like gpt-4o, cached reads at the cached price, and says so', async () => {
    // 1000 uncached·2.5e-6 + 1000 read·1.25e-6 + 200·1e-5 = 0.0025 + 0.00125 + 0.002
    const r = await valueOf(Cost, 'LLMCall', llm('l2'), s);
    expect(r.value).toBeCloseTo(0.00575, 15);
    expect(r.details).toMatchObject({ fallback: true, matchedBy: 'fallback', note: "no price for 'mystery-model', priced like gpt-4o" });
    expect(r.reasoning).toBe("LLM call to 'mystery-model': no price for 'mystery-model', priced like gpt-4o.");
  });

  it('sums per AgentCall, MASCall and Session with a per-model breakdown', async () => {
    // l3: 100·1.5e-7 + 10·6e-7 = 2.1e-5
    expect((await valueOf(Cost, 'AgentCall', agent('a2'), s)).value).toBeCloseTo(2.1e-5, 15);
    expect((await valueOf(Cost, 'AgentCall', agent('b1'), s)).value).toBeCloseTo(0.00575, 15);
    expect((await valueOf(Cost, 'MASCall', mas, s)).value).toBeCloseTo(0.009271, 15);
    const r = await valueOf(Cost, 'Session', s, s);
    expect(r.value).toBeCloseTo(0.0035 + 0.00575 + 2.1e-5, 15);
    const models = (r.details as { models: Record<string, unknown> }).models;
    expect(Object.keys(models)).toEqual(['gpt-4o', 'mystery-model', 'gpt-4o-mini']);
    // Every field of every model's totals: each token count is summed from its own usage field.
    expect(models).toEqual({
      'gpt-4o': {
        model: 'gpt-4o', calls: 1, cost: expect.closeTo(0.0035, 15),
        inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, priceKey: 'gpt-4o', source: 'litellm', fallback: false,
      },
      'mystery-model': {
        model: 'mystery-model', calls: 1, cost: expect.closeTo(0.00575, 15),
        inputTokens: 2000, outputTokens: 200, cacheReadTokens: 1000, cacheWriteTokens: 0, priceKey: 'gpt-4o', source: 'gpt-4o-fallback', fallback: true,
      },
      'gpt-4o-mini': {
        model: 'gpt-4o-mini', calls: 1, cost: expect.closeTo(2.1e-5, 15),
        inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, priceKey: 'gpt-4o-mini', source: 'litellm', fallback: false,
      },
    });
    expect(r.details).toMatchObject({ fallbackModels: ['mystery-model'] });
    expect(r.reasoning).toBe("0.009271 USD over 3 LLM call(s) of 3 model(s); no price for 'mystery-model', priced like gpt-4o.");
  });

  it('is 0 with no LLM calls and no fallback note', async () => {
    const b = new SessionBuilder();
    const a = b.agent('idle', { start: 0, end: 1 });
    const r = await valueOf(Cost, 'AgentCall', a, b.session);
    expect(r.value).toBe(0);
    expect(r.details).toEqual({ models: {} });
  });

  it('follows a table replaced at run time', async () => {
    const table = new PriceTable(new Map([['gpt-4o', { inputCostPerToken: 1e-6, outputCostPerToken: 1e-6 }]]));
    const metric = createCostMetric(() => table);
    const b = new SessionBuilder();
    const call = b.llm({ start: 0, end: 1, responseModel: 'm', usage: { inputTokens: 100, outputTokens: 100 } });
    expect((await valueOf(metric, 'LLMCall', call, b.session)).value).toBeCloseTo(2e-4, 15);
    table.replace(new Map([['m', { inputCostPerToken: 1e-5, outputCostPerToken: 2e-5 }]]));
    const r = await valueOf(metric, 'LLMCall', call, b.session);
    expect(r.value).toBeCloseTo(3e-3, 15);
    expect(r.details).toMatchObject({ fallback: false, priceKey: 'm' });
  });

  it('keeps apart the calls of one model priced two ways, and names the fallback in the container', async () => {
    const table = new PriceTable(new Map([
      ['gpt-4o', { inputCostPerToken: 1e-6, outputCostPerToken: 1e-6 }],
      ['acme/x', { inputCostPerToken: 1e-5, outputCostPerToken: 1e-5 }],
    ]));
    const metric = createCostMetric(() => table);
    const b = new SessionBuilder();
    b.llm({ start: 0, end: 1, responseModel: 'x', provider: 'acme', usage: { inputTokens: 100, outputTokens: 100 } }); // acme/x: 2e-3
    b.llm({ start: 1, end: 2, responseModel: 'x', usage: { inputTokens: 100, outputTokens: 100 } }); // no price: like gpt-4o, 2e-4
    const r = await valueOf(metric, 'Session', b.session, b.session);
    expect(r.value).toBeCloseTo(2.2e-3, 15);
    expect(r.reasoning).toBe("0.0022 USD over 2 LLM call(s) of 2 model(s); no price for 'x', priced like gpt-4o.");
    const models = (r.details as { models: Record<string, { calls: number; priceKey: string; fallback: boolean }> }).models;
    expect(Object.entries(models).map(([k, m]) => [k, m.calls, m.priceKey, m.fallback])).toEqual([
      ['x', 1, 'acme/x', false],
      ['x (priced as gpt-4o)', 1, 'gpt-4o', true],
    ]);
    expect(r.details).toMatchObject({ fallbackModels: ['x'] });
  });

  it('charges cache writes at the cache-creation price when the model has one', async () => {
    const b = new SessionBuilder();
    // claude-sonnet-4-5: (1000 − 300 − 200)·3e-6 + 300·3e-7 + 200·3.75e-6 + 100·1.5e-5 = 0.0015 + 0.00009 + 0.00075 + 0.0015
    const call = b.llm({ start: 0, end: 1, responseModel: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 1000, cacheReadTokens: 300, cacheWriteTokens: 200, outputTokens: 100 } });
    const r = await valueOf(Cost, 'LLMCall', call, b.session);
    expect(r.value).toBeCloseTo(0.00384, 15);
  });

  it('a call with a NaN count fails its own Cost and its containers\' only', () => {
    const b = new SessionBuilder();
    const good = b.agent('good', { start: 0, end: 10 });
    const bad = b.agent('bad', { start: 10, end: 20 });
    b.llm({ start: 1, end: 2, agent: good.id, responseModel: 'gpt-4o', usage: { inputTokens: 1000, outputTokens: 100 } });
    const broken = b.llm({ id: 'broken', start: 11, end: 12, agent: bad.id, responseModel: 'gpt-4o', usage: { inputTokens: 10, outputTokens: Number.NaN } });
    const ctx = (level: 'Session' | 'AgentCall' | 'LLMCall') => contextFor(b.session, level);
    expect(Cost.compute(good, ctx('AgentCall'))).toMatchObject({ value: expect.closeTo(0.0035, 15) });
    expect(() => Cost.compute(bad, ctx('AgentCall'))).toThrow('LLMCall broken: usage.outputTokens is not a non-negative number (NaN)');
    expect(() => Cost.compute(broken, ctx('LLMCall'))).toThrow(/LLMCall broken/);
    expect(() => Cost.compute(b.session, ctx('Session'))).toThrow(/LLMCall broken/);
  });

  it('does not skip', async () => {
    expect(await run(Cost, 'Session', s as Session, s)).not.toHaveProperty('skipped');
  });
});
