/**
 * The OTLP/JSON dialect fixtures: the same support exchange ("Where is order A-1187?" → a `lookup_order` tool call)
 * as eight instrumentations write it. Expected values read by hand from each file's attributes.
 */
import { describe, expect, it } from 'vitest';
import type { LLMCall, Session } from '@mce/core';
import { readSessions } from '../src/index.js';
import { fixture, summarise } from './helpers.js';

/** Files whose spans name a parent that was not exported, as a real export may: said once, in a warning. */
const ORPHANS: Record<string, string> = { 'openllmetry-legacy': 'eee19b7ec3c1b174 → eee19b7ec3c1b173' };
/** Files with a trace of no call (Braintrust's score-only span): not emitted, said in a warning. */
const NO_CALLS: Record<string, string> = {
  braintrust: 'session d7e0b60abf31dd5459358df206e2eca9: its 1 span(s) hold no workflow, agent, task, LLM or tool call; not emitted',
};

const read = async (f: string) => {
  const r = await readSessions(fixture(`otlp-dialects/${f}.json`));
  const orphan = ORPHANS[f];
  expect(r.warnings.map((w) => [w.code, w.message])).toEqual([
    ...(orphan
      ? [['unknown-parent', `1 span(s) of session ${r.sessions[0]?.id} name a parent span that is not among its spans (span → missing parent: ${orphan}): they are roots here, linked through that parent only once the store holds it as a call (another part of the session)`]]
      : []),
    ...(NO_CALLS[f] ? [['no-calls', NO_CALLS[f]]] : []),
  ]);
  return r.sessions;
};

const LOOKUP = { id: 'call_9RtYbK2mXqLp', name: 'lookup_order', arguments: { order_id: 'A-1187' } };
const LOOKUP_DEF = {
  name: 'lookup_order',
  description: 'Look up an order by its identifier.',
  inputSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};
const SYSTEM = { role: 'system', content: 'You are a support agent. Use the tools you are given.' };
const USER = { role: 'user', content: 'Where is order A-1187?' };

function onlyLlm(s: Session): LLMCall {
  expect(s.llmCalls).toHaveLength(1);
  return s.llmCalls[0]!;
}

describe('OTLP dialect fixtures', () => {
  it('raw.json (GenAI conventions, current names)', async () => {
    const [s] = await read('raw');
    expect(s!.id).toBe('053074667b1113278073667614bb3e19'); // no session key: the trace id
    const c = onlyLlm(s!);
    expect(c).toMatchObject({ operation: 'chat', provider: 'openai', requestModel: 'gpt-4o-mini', responseModel: 'gpt-4o-mini-2024-07-18', finishReasons: ['tool_calls'] });
    expect(c.usage).toEqual({ inputTokens: 412, outputTokens: 27, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 439 });
    expect(c.inputMessages).toEqual([SYSTEM, USER]);
    expect(c.outputMessages).toEqual([{ role: 'assistant', content: '', toolCalls: [LOOKUP] }]);
    expect(summarise(s!).counts).toEqual({ MASCall: 1, AgentCall: 0, TaskCall: 0, LLMCall: 1, ToolCall: 0 });
    expect(s!.userInput).toBe('Where is order A-1187?');
    expect(s!.finalResponse).toBeUndefined(); // the only reply is a tool call
  });

  it('openinference.json (flattened llm.* attributes)', async () => {
    const [s] = await read('openinference');
    const c = onlyLlm(s!);
    expect(c).toMatchObject({ status: 'ok', provider: 'openai', requestModel: 'gpt-4o-mini', responseModel: 'gpt-4o-mini-2024-07-18', finishReasons: ['tool_calls'] });
    expect(c.usage).toEqual({ inputTokens: 412, outputTokens: 27, cacheReadTokens: 256, cacheWriteTokens: 0, reasoningTokens: 8, totalTokens: 439 });
    expect(c.inputMessages).toEqual([SYSTEM, USER]);
    expect(c.outputMessages).toEqual([{ role: 'assistant', content: '', toolCalls: [LOOKUP] }]);
    expect(c.toolDefinitions).toEqual([LOOKUP_DEF]);
  });

  it('openllmetry.json (Traceloop workflow around a GenAI chat span)', async () => {
    const [s] = await read('openllmetry');
    expect(summarise(s!).counts).toEqual({ MASCall: 1, AgentCall: 0, TaskCall: 0, LLMCall: 1, ToolCall: 0 });
    expect(s!.masCalls[0]).toMatchObject({ id: 'aaa24d5a6cca68bf', name: 'support_triage.workflow', workflowName: 'support_triage' });
    const c = onlyLlm(s!);
    expect(c.parentId).toBe('aaa24d5a6cca68bf');
    expect(c.masCallId).toBe('aaa24d5a6cca68bf');
    expect(c.usage).toEqual({ inputTokens: 412, outputTokens: 27, cacheReadTokens: 256, cacheWriteTokens: 0, reasoningTokens: 8, totalTokens: 439 });
    expect(c.finishReasons).toEqual(['tool_call']);
    expect(c.toolDefinitions).toEqual([LOOKUP_DEF]);
    expect(c.outputMessages[0]!.toolCalls).toEqual([LOOKUP]);
  });

  it('openllmetry-legacy.json (indexed gen_ai.prompt/completion, prompt_tokens, functions)', async () => {
    const [s] = await read('openllmetry-legacy');
    const c = onlyLlm(s!);
    expect(c).toMatchObject({ provider: 'OpenAI', requestModel: 'gpt-4o-mini', finishReasons: ['tool_calls'] });
    expect(c.usage).toEqual({ inputTokens: 412, outputTokens: 27, cacheReadTokens: 0, cacheWriteTokens: 1024, reasoningTokens: 0, totalTokens: 439 });
    expect(c.inputMessages).toEqual([SYSTEM, USER]);
    expect(c.outputMessages).toEqual([{ role: 'assistant', content: '', toolCalls: [LOOKUP] }]);
    expect(c.toolDefinitions).toEqual([LOOKUP_DEF]);
    // The HTTP child span is plumbing, not an element.
    expect(summarise(s!).counts).toEqual({ MASCall: 1, AgentCall: 0, TaskCall: 0, LLMCall: 1, ToolCall: 0 });
  });

  it('litellm.json (proxy operation name, cache_creation spelling, system instructions)', async () => {
    const [s] = await read('litellm');
    const c = onlyLlm(s!);
    expect(c).toMatchObject({ provider: 'bedrock', requestModel: 'anthropic.claude-3-5-sonnet-20241022-v2:0' });
    expect(c.usage).toEqual({ inputTokens: 1204, outputTokens: 88, cacheReadTokens: 1024, cacheWriteTokens: 180, reasoningTokens: 0, totalTokens: 1292 });
    expect(c.inputMessages).toEqual([SYSTEM, USER]);
    expect(c.outputMessages[0]!.toolCalls).toEqual([{ id: 'toolu_01Wx', name: 'lookup_order', arguments: { order_id: 'A-1187' } }]);
    expect(c.toolDefinitions).toEqual([LOOKUP_DEF]);
    // No gen_ai.response.finish_reasons: the output message's own finish_reason.
    expect(c.finishReasons).toEqual(['tool_use']);
  });

  it('vercel.json (ai.* spans: outer task, doGenerate LLM call, ai.toolCall)', async () => {
    const [s] = await read('vercel');
    expect(summarise(s!)).toMatchObject({
      counts: { MASCall: 1, AgentCall: 0, TaskCall: 1, LLMCall: 1, ToolCall: 1 },
      tokens: { input: 412, output: 27, cacheRead: 384, total: 439 },
      tools: ['lookup_order'],
    });
    const c = onlyLlm(s!);
    expect(c).toMatchObject({ name: 'ai.generateText.doGenerate', provider: 'openai', requestModel: 'gpt-4o-mini', responseModel: 'gpt-4o-mini-2024-07-18', finishReasons: ['tool-calls'] });
    expect(c.inputMessages).toEqual([SYSTEM, USER]);
    expect(c.outputMessages).toEqual([{ role: 'assistant', content: '', toolCalls: [LOOKUP] }]);
    expect(c.toolDefinitions).toEqual([LOOKUP_DEF]);
    const t = s!.toolCalls[0]!;
    expect(t).toMatchObject({ toolName: 'lookup_order', toolCallId: 'call_9RtYbK2mXqLp', arguments: { order_id: 'A-1187' }, result: { status: 'in_transit', eta: '2026-06-15' }, definition: LOOKUP_DEF });
    expect(s!.taskCalls[0]!.taskName).toBe('ai.generateText');
  });

  it('braintrust.json (braintrust.* attributes; the score-only trace has no calls: not a session)', async () => {
    const sessions = await read('braintrust');
    expect(sessions.map((x) => x.id)).toEqual(['6d063eab821e3b0554ca3f58087069cd']);
    const c = onlyLlm(sessions[0]!);
    expect(c).toMatchObject({ requestModel: 'gpt-4o-mini', responseModel: 'gpt-4o-mini-2024-07-18' });
    expect(c.usage).toEqual({ inputTokens: 412, outputTokens: 27, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 439 });
    expect(c.inputMessages).toEqual([SYSTEM, USER]);
    expect(c.outputMessages[0]!.toolCalls).toEqual([LOOKUP]);
  });

  it('raw-folk.json (home-grown names: bare, sparse, camelCase, packed usage; HTTP span ignored)', async () => {
    const [s] = await read('raw-folk');
    expect(s!.llmCalls.map((c) => c.name)).toEqual(['call_model', 'call_model_sparse', 'call_model_camel', 'call_model_packed']);
    expect(s!.llmCalls.map((c) => [c.usage.inputTokens, c.usage.outputTokens, c.usage.cacheReadTokens, c.usage.totalTokens])).toEqual([
      [412, 27, 0, 439],
      [412, 27, 0, 439],
      [412, 27, 0, 439],
      [412, 27, 256, 439],
    ]);
    expect(s!.llmCalls.map((c) => c.provider)).toEqual(['OpenAI', undefined, 'OpenAI', undefined]);
    expect(s!.llmCalls.every((c) => c.requestModel === 'gpt-4o-mini' && c.finishReasons[0] === 'stop')).toBe(true);
    expect(s!.userInput).toBe('Where is order A-1187?');
    expect(s!.finalResponse).toBe('Let me check that for you.');
  });
});

describe('OTLP dialect fixtures: the summary of every file', () => {
  const none = { MASCall: 0, AgentCall: 0, TaskCall: 0, LLMCall: 0, ToolCall: 0 };
  const oneLlm = { ...none, MASCall: 1, LLMCall: 1 };
  const tokens = (input: number, output: number, cacheRead: number, total: number) => ({ input, output, cacheRead, total });
  const base = { agents: [], transitions: [], llmAgents: [null], toolAgents: [], errors: [], tools: [] };
  // [file, counts, tokens, tools, userInput, finalResponse] — read by hand from each file.
  const cases: [string, object, object, string[], string | undefined, string | undefined][] = [
    ['braintrust', oneLlm, tokens(412, 27, 0, 439), [], 'Where is order A-1187?', undefined],
    ['litellm', oneLlm, tokens(1204, 88, 1024, 1292), [], 'Where is order A-1187?', undefined],
    ['openinference', oneLlm, tokens(412, 27, 256, 439), [], 'Where is order A-1187?', undefined],
    ['openllmetry', oneLlm, tokens(412, 27, 256, 439), [], 'Where is order A-1187?', undefined],
    ['openllmetry-legacy', oneLlm, tokens(412, 27, 0, 439), [], 'Where is order A-1187?', undefined],
    ['raw', oneLlm, tokens(412, 27, 0, 439), [], 'Where is order A-1187?', undefined],
    ['raw-folk', { ...oneLlm, LLMCall: 4 }, tokens(1648, 108, 256, 1756), [], 'Where is order A-1187?', 'Let me check that for you.'],
    ['vercel', { ...oneLlm, TaskCall: 1, ToolCall: 1 }, tokens(412, 27, 384, 439), ['lookup_order'], 'Where is order A-1187?', undefined],
  ];
  it.each(cases)('%s', async (f, counts, tok, tools, userInput, finalResponse) => {
    const [s] = await read(f);
    const sum = summarise(s!);
    expect(sum).toEqual({
      ...base,
      counts,
      tokens: tok,
      tools,
      llmAgents: s!.llmCalls.map(() => null),
      toolAgents: tools.map(() => null),
    });
    expect(s!.userInput).toBe(userInput);
    expect(s!.finalResponse).toBe(finalResponse);
  });
});
