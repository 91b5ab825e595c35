/** The MCP metrics in `llm` mode against the scripted judge server, and every metric parameter. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isSkip, type Element, type MetricValue, type OntologyLevel, type Session } from '@mce/core';
import {
  Judge,
  MissingJudgeInputError,
  createMCPTaskCompletion,
  createMCPUse,
  createMultiTurnMCPUse,
  judgeConfigFromEnv,
  resetLogprobSupport,
  type McpMetricDeps,
} from '@mce/provider-native';
import { startScriptedLLMServer, type ScriptedLLMServer, type ScriptedStep } from '../../../../test-support/scripted-llm-server.mjs';
import { REPLY1, REPLY2, TURN1, TURN2, weatherSession } from './support/mcp-session.js';
import { startScriptedJudge } from './support/scripted-judge.js';
import { contextFor } from '../support/session-builder.js';

let server: ScriptedLLMServer;
let judge: Judge;
beforeAll(async () => {
  ({ server, judge } = await startScriptedJudge());
});
afterAll(() => server.close());
beforeEach(() => resetLogprobSupport());

const deps = (extra: Partial<McpMetricDeps> = {}): McpMetricDeps => ({ judge, env: {}, persistedEvalMode: () => undefined, ...extra });

type Body = Parameters<Exclude<Parameters<ScriptedLLMServer['setScript']>[0], unknown[]>>[0];
const system = (b: Body) => b.messages?.[0]?.content ?? '';
const user = (b: Body) => b.messages?.[1]?.content ?? '';
const isTurn2 = (b: Body) => user(b).includes(`User request:\n${TURN2}`);

/** Replies by rubric (and turn): `Score: N` with no log-probabilities, so the judge's integer is the score. */
function byRubric(scores: { primitive: number | [number, number]; argument: number | [number, number]; task?: [number, number] }, extra: ScriptedStep = {}) {
  const pick = (s: number | [number, number], b: Body) => (typeof s === 'number' ? s : isTurn2(b) ? s[1] : s[0]);
  server.setScript((b) => {
    const sys = system(b);
    const n = sys.includes('PRIMITIVE USAGE')
      ? pick(scores.primitive, b)
      : sys.includes('ARGUMENT CORRECTNESS')
        ? pick(scores.argument, b)
        : pick(scores.task ?? 3, b);
    return { text: `Judged.\nScore: ${n}`, ...extra };
  });
}

async function value(metric: ReturnType<typeof createMCPUse>, session: Session, level: OntologyLevel, options = {}) {
  const element: Element = level === 'Session' ? session : session.agentCalls[0]!;
  const outcome = await metric.compute(element, contextFor(session, level, undefined, options));
  if (isSkip(outcome)) throw new Error(`skipped: ${outcome.skipped}`);
  return outcome as MetricValue;
}

describe('MCPUse in llm mode', () => {
  it('judges primitive usage and argument correctness and reports the lower, with the usage of both calls', async () => {
    byRubric({ primitive: 5, argument: 3 });
    const before = server.requests.length;
    const out = await value(createMCPUse(deps()), weatherSession(), 'Session');
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    expect(out.value).toBe(0.5); // min((5-1)/4, (3-1)/4)
    expect(out.details).toMatchObject({
      evalMode: 'llm',
      evalModeSource: 'default',
      threshold: 0.5,
      success: true,
      strictMode: false,
      subScores: { primitiveUsage: 1, argumentCorrectness: 0.5 },
      judgeModel: 'gpt-4o',
    });
    expect(out.evaluation).toEqual({ model: 'gpt-4o', promptTokens: 200, completionTokens: 40, totalTokens: 240, costUsd: 0.002 });
    expect(out.reasoning).toContain('Primitive usage 1: Judged.');
    expect(out.reasoning).toContain('Argument correctness 0.5: Judged.');
    expect(out.reasoning).toContain('Score = the lower of primitive usage (1) and argument correctness (0.5) = 0.5.');
    // The judge saw the servers, the calls with their arguments and results, and the reply.
    const prompt = user(requests[0]!.body);
    expect(prompt).toContain('- tool get_forecast: Weather forecast for a city for the coming days.');
    expect(prompt).toContain('1. tool weather/get_forecast arguments {"city":"Lisbon","days":3} → result:');
    expect(prompt).toContain('2. tool weather/get_air_quality arguments {"city":"Lisbon"}');
    expect(prompt).toContain(REPLY2);
  });

  it('at the AgentCall level judges the agent’s own calls and request', async () => {
    byRubric({ primitive: 4, argument: 4 });
    const before = server.requests.length;
    const out = await value(createMCPUse(deps()), weatherSession(), 'AgentCall');
    expect(out.value).toBe(0.75);
    const prompt = user(server.requests[before]!.body);
    expect(prompt).toContain(`User request:\n${TURN1}`);
    expect(prompt).toContain(`Reply shown to the user:\n${REPLY2}`);
  });

  it('at the AgentCall level judges the session’s request when the agent has none of its own', async () => {
    byRubric({ primitive: 4, argument: 4 });
    const base = weatherSession();
    const { userInput: _own, ...agent } = base.agentCalls[0]!;
    const session: Session = { ...base, userInput: 'Plan my Lisbon weekend.', agentCalls: [agent] };
    const before = server.requests.length;
    const out = await value(createMCPUse(deps()), session, 'AgentCall');
    expect(out.value).toBe(0.75);
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    for (const r of requests) expect(user(r.body)).toContain('User request:\nPlan my Lisbon weekend.');
  });

  it('is skipped with the reason when no MCP server is available, without calling the judge', async () => {
    const before = server.requests.length;
    const session = weatherSession({ servers: [] });
    const metric = createMCPUse(deps());
    const s = await metric.compute(session, contextFor(session, 'Session'));
    expect(s).toEqual({ skipped: 'no MCP server is available to this session: there is no MCP use to judge' });
    const a = await metric.compute(session.agentCalls[0]!, contextFor(session, 'AgentCall'));
    expect(a).toEqual({ skipped: 'no MCP server is available to agent forecaster: there is no MCP use to judge' });
    for (const m of [createMultiTurnMCPUse(deps()), createMCPTaskCompletion(deps())])
      expect(isSkip(await m.compute(session, contextFor(session, 'Session')))).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('uses the agent’s own MCP inventory, and the union of the agents’ at the session level when it has none', async () => {
    byRubric({ primitive: 5, argument: 5 });
    const session = weatherSession({ servers: [], agentServers: weatherSession().mcpServers });
    expect((await value(createMCPUse(deps()), session, 'AgentCall')).value).toBe(1);
    const before = server.requests.length;
    expect((await value(createMCPUse(deps()), session, 'Session')).value).toBe(1);
    expect(user(server.requests[before]!.body)).toContain('- server "weather" (stdio)');
  });

  it('fails (never scores 0) when there is no user request', async () => {
    const session = { ...weatherSession(), userInput: undefined, llmCalls: [] } as Session;
    await expect(createMCPUse(deps()).compute(session, contextFor(session, 'Session'))).rejects.toBeInstanceOf(MissingJudgeInputError);
  });
});

describe('MultiTurnMCPUse and MCPTaskCompletion in llm mode', () => {
  it('MultiTurnMCPUse judges each turn and reports the lower of the two means', async () => {
    byRubric({ primitive: [5, 3], argument: [4, 5] });
    const before = server.requests.length;
    const out = await value(createMultiTurnMCPUse(deps()), weatherSession(), 'Session');
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(4);
    // primitive: (1 + 0.5)/2 = 0.75; argument: (0.75 + 1)/2 = 0.875
    expect(out.value).toBe(0.75);
    expect(out.details).toMatchObject({ subScores: { primitiveUsage: 0.75, argumentCorrectness: 0.875 } });
    expect((out.details!.turns as unknown[]).length).toBe(2);
    // Turn 2 sees only its own call, with turn 1 as earlier conversation.
    const turn2 = requests.map((r) => user(r.body)).find((p) => p.includes(`User request:\n${TURN2}`))!;
    expect(turn2).toContain('Earlier in the conversation:');
    expect(turn2).toContain('1. tool weather/get_air_quality');
    expect(turn2).not.toContain('weather/get_forecast');
    expect(out.evaluation).toMatchObject({ promptTokens: 400, completionTokens: 80, totalTokens: 480, costUsd: 0.004 });
  });

  it('MCPTaskCompletion judges each turn on what the user sees only and averages', async () => {
    byRubric({ primitive: 1, argument: 1, task: [5, 2] });
    const before = server.requests.length;
    const out = await value(createMCPTaskCompletion(deps()), weatherSession(), 'Session');
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2);
    expect(out.value).toBe(0.625); // (1 + 0.25) / 2
    for (const r of requests) {
      expect(system(r.body)).toContain('TASK COMPLETION');
      expect(user(r.body)).not.toContain('get_forecast');
      expect(user(r.body)).not.toContain('get_air_quality');
    }
    expect(requests.map((r) => user(r.body)).some((p) => p.includes(REPLY1))).toBe(true);
    expect(out.reasoning).toContain('Score = mean task completion over 2 turn(s) = 0.625.');
  });
});

describe('a turn without a user request', () => {
  it('fails MultiTurnMCPUse and MCPTaskCompletion naming the turn, without calling the judge', async () => {
    const base = weatherSession();
    // The second user message is empty: turn 2 has nothing to judge against.
    const blank = (m: Session['llmCalls'][number]['inputMessages'][number]) => (m.role === 'user' && m.content === TURN2 ? { ...m, content: '' } : m);
    const session: Session = { ...base, llmCalls: base.llmCalls.map((c) => ({ ...c, inputMessages: c.inputMessages.map(blank) })) };
    byRubric({ primitive: 5, argument: 5, task: [5, 5] });
    const before = server.requests.length;
    const multi = createMultiTurnMCPUse(deps()).compute(session, contextFor(session, 'Session'));
    await expect(multi).rejects.toBeInstanceOf(MissingJudgeInputError);
    await expect(multi).rejects.toThrow('MultiTurnMCPUse: turn 2 has no user request to judge');
    const task = createMCPTaskCompletion(deps()).compute(session, contextFor(session, 'Session'));
    await expect(task).rejects.toThrow('MCPTaskCompletion: turn 2 has no user request to judge');
    expect(server.requests.length).toBe(before);
  });
});

describe('parameters', () => {
  const session = weatherSession();

  it('threshold: success is score ≥ threshold; null gives the score only', async () => {
    byRubric({ primitive: 5, argument: 3 });
    const high = await value(createMCPUse(deps()), session, 'Session', { threshold: 0.6 });
    expect(high.details).toMatchObject({ threshold: 0.6, success: false });
    const none = await value(createMCPUse(deps()), session, 'Session', { threshold: null });
    expect(none.details!.threshold).toBeNull();
    expect(none.details).not.toHaveProperty('success');
    expect(none.value).toBe(0.5);
  });

  it('threshold from the library API, overridden by the config options', async () => {
    byRubric({ primitive: 5, argument: 3 });
    const metric = createMCPUse(deps({ options: { threshold: 0.9 } }));
    expect((await value(metric, session, 'Session')).details).toMatchObject({ threshold: 0.9, success: false });
    expect((await value(metric, session, 'Session', { threshold: 0.4 })).details).toMatchObject({ threshold: 0.4, success: true });
  });

  it('strict_mode: 1 only for a perfect score, against a threshold of 1', async () => {
    byRubric({ primitive: 5, argument: 3 });
    const partial = await value(createMCPUse(deps()), session, 'Session', { strict_mode: true });
    expect(partial.value).toBe(0);
    expect(partial.details).toMatchObject({ threshold: 1, success: false, strictMode: true, unstrictScore: 0.5 });
    byRubric({ primitive: 5, argument: 5 });
    const perfect = await value(createMCPUse(deps()), session, 'Session', { strictMode: true });
    expect(perfect.value).toBe(1);
    expect(perfect.details).toMatchObject({ threshold: 1, success: true });
  });

  it('include_reason false leaves the reasoning empty', async () => {
    byRubric({ primitive: 5, argument: 3 });
    const out = await value(createMCPUse(deps()), session, 'Session', { include_reason: false });
    expect(out.reasoning).toBe('');
    expect(out.value).toBe(0.5);
  });

  it('verbose_mode prints each prompt sent to the judge and each judgement to stderr, and keeps them in details.steps', async () => {
    byRubric({ primitive: 5, argument: 3 });
    const printed: string[] = [];
    const quiet = await value(createMCPUse(deps({ verboseOutput: (t) => printed.push(t) })), session, 'Session');
    expect(quiet.details).not.toHaveProperty('steps');
    expect(printed).toEqual([]);
    const out = await value(createMCPUse(deps({ verboseOutput: (t) => printed.push(t) })), session, 'Session', { verbose_mode: true });
    const steps = out.details!.steps as Array<Record<string, unknown>>;
    expect(steps.filter((s) => s.step === 'llm-judge').map((s) => [s.subScore, s.score]).sort()).toEqual([
      ['argumentCorrectness', 3],
      ['primitiveUsage', 5],
    ]);
    const text = printed.join('');
    // the prompts, in full, as the judge received them
    const sent = server.requests.slice(-2).map((r) => r.body.messages?.[1]?.content ?? '');
    for (const prompt of sent) expect(text).toContain(prompt);
    expect(text).toContain('[MCPUse verbose] llm-prompt primitiveUsage to gpt-4o:');
    expect(text).toContain('PRIMITIVE USAGE');
    expect(text).toMatch(/\[MCPUse verbose\] llm-judge \{"subScore":"argumentCorrectness","score":3/);
    expect(out.value).toBe(quiet.value); // printing changes nothing
  });

  it('verbose_mode prints to the process stderr by default', async () => {
    byRubric({ primitive: 5, argument: 5 });
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await value(createMCPUse(deps()), session, 'Session', { verbose_mode: true });
    } finally {
      process.stderr.write = original;
    }
    expect(written.join('')).toContain('[MCPUse verbose] llm-prompt argumentCorrectness to gpt-4o:');
  });

  it('async_mode: sub-judgements run concurrently by default, one at a time when off', async () => {
    byRubric({ primitive: 5, argument: 5 }, { latencyMs: 60 });
    // Fresh server counters: a dedicated server for the concurrency peak.
    const own = await startScriptedLLMServer({ script: () => ({ text: 'ok\nScore: 5', latencyMs: 60 }) });
    try {
      const j = new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: own.url }), { pricing: () => 0 });
      await value(createMultiTurnMCPUse(deps({ judge: j })), session, 'Session', { async_mode: false });
      expect(own.maxConcurrent).toBe(1);
      await value(createMultiTurnMCPUse(deps({ judge: j })), session, 'Session');
      expect(own.maxConcurrent).toBe(4); // 2 turns × 2 sub-scores at once
    } finally {
      await own.close();
    }
  });

  it('flaky only marks the result: a failure is not retried, a success keeps its score and usage', async () => {
    let n = 0;
    server.setScript(() => (n++ === 0 ? { status: 400, error: { message: 'bad request' } } : { text: 'fine\nScore: 5' }));
    const before = server.requests.length;
    await expect(value(createMCPUse(deps()), session, 'Session', { flaky: true, async_mode: false })).rejects.toThrow(/bad request/);
    expect(server.requests.length - before).toBe(1); // no second attempt
    byRubric({ primitive: 5, argument: 3 });
    const plain = await value(createMCPUse(deps()), session, 'Session');
    const marked = await value(createMCPUse(deps()), session, 'Session', { flaky: true });
    expect(plain.details).not.toHaveProperty('flaky');
    expect(marked.details).toMatchObject({ flaky: true });
    expect(marked.value).toBe(plain.value);
    expect(marked.reasoning).toBe(plain.reasoning);
    expect(marked.evaluation).toEqual(plain.evaluation);
    const { flaky: _mark, ...rest } = marked.details!;
    expect(rest).toEqual(plain.details);
  });

  it('a judge reply without usage is flagged: details.usageReported is false (and absent when every reply had usage)', async () => {
    server.setScript(() => ({ text: 'ok\nScore: 4', usage: null }));
    const without = await value(createMCPUse(deps()), session, 'Session');
    expect(without.details).toMatchObject({ usageReported: false });
    expect(without.evaluation).toMatchObject({ promptTokens: 0, totalTokens: 0 });
    server.setScript(() => ({ text: 'ok\nScore: 4' }));
    const reported = await value(createMCPUse(deps()), session, 'Session');
    expect(reported.details).not.toHaveProperty('usageReported');
  });

  it('model defaults to LLM_MODEL_NAME when set, else gpt-5.4', async () => {
    byRubric({ primitive: 5, argument: 5 });
    const noModel = new Judge(judgeConfigFromEnv({ OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url }), { pricing: () => 0 });
    let before = server.requests.length;
    const seedDefault = await value(createMCPUse(deps({ judge: noModel })), session, 'Session');
    expect(server.requests.slice(before).map((r) => r.body.model)).toEqual(['gpt-5.4', 'gpt-5.4']);
    expect(seedDefault.details).toMatchObject({ judgeModel: 'gpt-5.4' });
    before = server.requests.length;
    const configured = await value(createMCPUse(deps()), session, 'Session'); // the judge of LLM_MODEL_NAME=gpt-4o
    expect(server.requests.slice(before).map((r) => r.body.model)).toEqual(['gpt-4o', 'gpt-4o']);
    expect(configured.details).toMatchObject({ judgeModel: 'gpt-4o' });
  });

  it('model: the judge calls use the metric’s model on the same endpoint', async () => {
    byRubric({ primitive: 5, argument: 5 });
    const before = server.requests.length;
    const out = await value(createMCPUse(deps()), session, 'Session', { model: 'gpt-4o-mini' });
    expect(server.requests.slice(before).map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
    expect(out.details).toMatchObject({ judgeModel: 'gpt-4o-mini' });
    expect(out.evaluation!.model).toBe('gpt-4o-mini');
    expect(out.evaluation!.costUsd).toBe(0.002); // the passed judge's pricing (0.001 a call) is kept for the model
  });

  it('invalid options fail the computation naming the option', async () => {
    await expect(createMCPUse(deps()).compute(session, contextFor(session, 'Session', undefined, { threshold: 2 }))).rejects.toThrow(/threshold/);
    await expect(createMCPUse(deps()).compute(session, contextFor(session, 'Session', undefined, { eval_mode: 'fast' }))).rejects.toThrow(
      /eval_mode option: eval mode "fast" is not one of llm, hybrid, system_one/,
    );
    await expect(createMCPUse(deps()).compute(session, contextFor(session, 'Session', undefined, { system_one_model: 'remote' }))).rejects.toThrow(
      /system_one_model/,
    );
  });

  it('cacheKey depends on the mode, options, judge model and inputs; none for local system_one', () => {
    const metric = createMCPUse(deps());
    const key = metric.cacheKey!(session, contextFor(session, 'Session'))!;
    expect(key).toMatch(/^mce\|MCPUse\|v4\|llm\|gpt-4o\|jev-latest\|opts:[0-9a-f]{16}\|in:[0-9a-f]{64}$/);
    expect(metric.cacheKey!(session, contextFor(session, 'Session'))).toBe(key);
    expect(metric.cacheKey!(session, contextFor(session, 'Session', undefined, { threshold: 0.7 }))).not.toBe(key);
    expect(metric.cacheKey!(weatherSession({ forecastArgs: { city: 'Porto' } }), contextFor(session, 'Session'))).not.toBe(key);
    expect(metric.cacheKey!(session, contextFor(session, 'Session', undefined, { eval_mode: 'hybrid' }))).toContain('|hybrid|');
    expect(metric.cacheKey!(session, contextFor(session, 'Session', undefined, { eval_mode: 'system_one' }))).toBeUndefined();
  });

  it('cacheKey changes with the judge settings that change a result: samples, log-probabilities, endpoint', () => {
    const keyWith = (env: Record<string, string>) => {
      const j = new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: 'http://127.0.0.1:9/v1', ...env }));
      return createMCPUse(deps({ judge: j })).cacheKey!(session, contextFor(session, 'Session'))!;
    };
    const base = keyWith({});
    expect(keyWith({})).toBe(base);
    expect(keyWith({ MCE_JUDGE_SAMPLES: '3' })).not.toBe(base);
    expect(keyWith({ MCE_JUDGE_LOGPROBS: 'false' })).not.toBe(base);
    expect(keyWith({ MCE_JUDGE_MAX_TOKENS: '50' })).not.toBe(base);
    expect(keyWith({ LLM_BASE_MODEL_URL_MCE: 'http://127.0.0.1:10/v1' })).not.toBe(base);
  });

  it('in system_one mode with an endpoint model, cacheKey changes with the judge endpoint it asks', () => {
    const keyAt = (url: string) => {
      const j = new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: url }));
      const options = { eval_mode: 'system_one', system_one_model: 'endpoint:gpt-4o-mini' };
      return createMCPUse(deps({ judge: j })).cacheKey!(session, contextFor(session, 'Session', undefined, options))!;
    };
    const key = keyAt('http://127.0.0.1:9/v1');
    expect(key).toMatch(/^mce\|MCPUse\|v4\|system_one\|-\|endpoint:gpt-4o-mini\|/);
    expect(keyAt('http://127.0.0.1:9/v1')).toBe(key);
    expect(keyAt('http://localhost:9/v1')).not.toBe(key);
  });
});
