/** The MCP metrics in `hybrid` and `system_one` modes, the System One fallbacks, the endpoint model and mode sources. */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSkip, type MetricValue } from '@mce/core';
import {
  Judge,
  LEVEL_VALUES,
  LocalSystemOne,
  answerFrom,
  createMCPTaskCompletion,
  createMCPUse,
  createMultiTurnMCPUse,
  resetLogprobSupport,
  setPersistedEvalMode,
  turnInteraction,
  wholeInteraction,
  sessionConversation,
  SYSTEM_ONE_QUESTIONS,
  type McpMetric,
  type McpMetricDeps,
  type SystemOneModel,
  type SystemOneQuestion,
} from '@mce/provider-native';
import type { ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';
import { TURN2, weatherSession } from './support/mcp-session.js';
import { startScriptedJudge } from './support/scripted-judge.js';
import { contextFor } from '../support/session-builder.js';

let server: ScriptedLLMServer;
let judge: Judge;
beforeAll(async () => {
  ({ server, judge } = await startScriptedJudge());
});
afterAll(() => server.close());
beforeEach(() => resetLogprobSupport());

/** Fixed level probabilities per question (worked by hand below). */
const PROBS: Record<SystemOneQuestion, number[]> = {
  primitives: [0, 0, 0.5, 0.5], // value (1·0 + 2·0.5 + 3·0.5)/3 = 0.8333…, level 2 (first of the tie), confidence 0.5
  arguments: [0.1, 0.2, 0.3, 0.4], // value (0.2 + 0.6 + 1.2)/3 = 0.6667, level 3, confidence 0.4
  task: [0.7, 0.1, 0.1, 0.1], // value (0.1 + 0.2 + 0.3)/3 = 0.2, level 0, confidence 0.7
};

/**
 * The system_one MCPUse score (or confidence) of PROBS' answers: their weighted mean, each answer's weight (the
 * configured one) times e^(−3·value), so the low task answer dominates.
 */
const VALUES: Record<SystemOneQuestion, number> = { primitives: 2.5 / 3, arguments: 2 / 3, task: 0.2 };
const CONFIDENCES: Record<SystemOneQuestion, number> = { primitives: 0.5, arguments: 0.4, task: 0.7 };
function decisiveMean(of: Record<SystemOneQuestion, number>, configured: Record<SystemOneQuestion, number> = { primitives: 1, arguments: 1, task: 1 }): number {
  const w = SYSTEM_ONE_QUESTIONS.map((q) => configured[q] * Math.exp(-3 * VALUES[q]));
  return SYSTEM_ONE_QUESTIONS.reduce((s, q, i) => s + w[i]! * of[q], 0) / w.reduce((a, b) => a + b, 0);
}
const SCORE = decisiveMean(VALUES); // 0.350: the plain mean would be 1.7 / 3 = 0.567
const CONFIDENCE = decisiveMean(CONFIDENCES); // 0.626

class StubSystemOne implements SystemOneModel {
  readonly id = 'stub';
  readonly requests: Array<{ questions: readonly SystemOneQuestion[]; extracted?: string }> = [];
  constructor(private readonly failOn: SystemOneQuestion[] = []) {}
  async answer(req: Parameters<SystemOneModel['answer']>[0]) {
    this.requests.push({ questions: req.questions, ...(req.extracted ? { extracted: req.extracted } : {}) });
    if (req.questions.some((q) => this.failOn.includes(q))) throw new Error('System One is down');
    return { model: 'stub', answers: req.questions.map((q) => answerFrom(q, PROBS[q])) };
  }
}

async function run(metric: McpMetric, options: Record<string, unknown> = {}, session = weatherSession()) {
  const outcome = await metric.compute(session, contextFor(session, 'Session', undefined, options));
  if (isSkip(outcome)) throw new Error(outcome.skipped);
  return outcome as MetricValue;
}
const base = (stub: SystemOneModel, extra: Partial<McpMetricDeps> = {}): McpMetricDeps => ({
  judge,
  env: {},
  persistedEvalMode: () => undefined,
  systemOne: () => stub,
  ...extra,
});

const EXTRACTION = '{"asked": "forecast for Lisbon, 3 days", "done": "get_forecast ok", "needed": "get_forecast"}';
function hybridScript(judgeScore = 2) {
  server.setScript((b) => {
    const sys = b.messages?.[0]?.content ?? '';
    if (sys.startsWith('You read an MCP agent interaction')) return { text: EXTRACTION };
    return { text: `Judged by the LLM.\nScore: ${judgeScore}` };
  });
}

describe('hybrid mode', () => {
  it('the LLM extracts, System One decides each sub-score on the four levels with a one-line reason', async () => {
    hybridScript();
    const stub = new StubSystemOne();
    const before = server.requests.length;
    const out = await run(createMCPUse(base(stub)), { eval_mode: 'hybrid' });
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(1); // the extraction only
    expect(requests[0]!.body.logprobs).toBeUndefined();
    expect(stub.requests).toEqual([
      { questions: ['primitives'], extracted: 'asked: forecast for Lisbon, 3 days\ndone: get_forecast ok\nneeded: get_forecast' },
      { questions: ['arguments'], extracted: 'asked: forecast for Lisbon, 3 days\ndone: get_forecast ok\nneeded: get_forecast' },
    ]);
    // Hybrid takes the chosen level: primitives level 2 → 2/3, arguments level 3 → 1; score = min = 2/3
    expect(out.value).toBe(2 / 3);
    expect(out.details).toMatchObject({ subScores: { primitiveUsage: 2 / 3, argumentCorrectness: 1 } });
    expect(out.details).toMatchObject({
      evalMode: 'hybrid',
      evalModeSource: 'metric',
      systemOneModel: 'jev-latest',
      decisions: {
        primitiveUsage: { decidedBy: 'system_one', level: 2, confidence: 0.5 },
        argumentCorrectness: { decidedBy: 'system_one', level: 3, confidence: 0.4 },
      },
    });
    expect(out.reasoning!.split('\n').slice(0, 2)).toEqual([
      'Primitive usage: level 2/3 (mostly yes), confidence 0.5 — System One stub',
      'Argument correctness: level 3/3 (yes), confidence 0.4 — System One stub',
    ]);
    expect(out.evaluation).toEqual({ model: 'gpt-4o', promptTokens: 100, completionTokens: 20, totalTokens: 120, costUsd: 0.001 });
  });

  it('when a System One call fails, the LLM judge decides that sub-score', async () => {
    hybridScript(2);
    const before = server.requests.length;
    const out = await run(createMCPUse(base(new StubSystemOne(['arguments']))), { eval_mode: 'hybrid', verbose_mode: true });
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(2); // extraction + the argument rubric
    expect(requests[1]!.body.messages?.[0]?.content).toContain('ARGUMENT CORRECTNESS');
    expect(out.value).toBe(0.25); // min(2/3 from level 2, (2-1)/4 from the judge)
    expect(out.details).toMatchObject({
      decisions: {
        primitiveUsage: { decidedBy: 'system_one' },
        argumentCorrectness: { decidedBy: 'llm', judgeScore: 2, systemOneError: 'System One is down' },
      },
    });
    expect(out.reasoning).toContain('Argument correctness 0.25 (System One failed: System One is down; decided by the LLM judge): Judged by the LLM.');
    const steps = (out.details!.steps as Array<{ step: string }>).map((s) => s.step);
    expect(steps).toEqual(expect.arrayContaining(['llm-extraction', 'system-one', 'system-one-failed', 'llm-judge']));
    expect(out.evaluation).toMatchObject({ totalTokens: 240, costUsd: 0.002 });
  });

  it('MCPTaskCompletion in hybrid: per turn an extraction and the System One task answer; mean over turns', async () => {
    hybridScript();
    const stub = new StubSystemOne();
    const out = await run(createMCPTaskCompletion(base(stub)), { eval_mode: 'hybrid' });
    expect(stub.requests.map((r) => r.questions)).toEqual([['task'], ['task']]);
    expect(out.value).toBe(0); // level 0 on both turns (system_one would report the expectation, 0.2)
  });

  it('MultiTurnMCPUse in hybrid with the real local model gives the same values as the model itself', async () => {
    hybridScript();
    const local = new LocalSystemOne();
    const out = await run(createMultiTurnMCPUse(base(local)), { eval_mode: 'hybrid' });
    const turns = out.details!.turns as Array<{ primitiveUsage: { value: number }; argumentCorrectness: { value: number } }>;
    expect(turns).toHaveLength(2);
    // What the model itself answers on each turn, given the same extraction; hybrid takes the chosen level.
    const conversation = sessionConversation(weatherSession());
    const expected = await Promise.all(
      conversation.turns.map(async (_, k) => {
        const { answers } = await new LocalSystemOne().answer({
          interaction: turnInteraction(conversation, k),
          questions: ['primitives', 'arguments'],
          extracted: 'asked: forecast for Lisbon, 3 days\ndone: get_forecast ok\nneeded: get_forecast',
        });
        return { primitiveUsage: LEVEL_VALUES[answers[0]!.level], argumentCorrectness: LEVEL_VALUES[answers[1]!.level] };
      }),
    );
    expect(turns.map((t) => ({ primitiveUsage: t.primitiveUsage.value, argumentCorrectness: t.argumentCorrectness.value }))).toEqual(expected);
    const p = (turns[0]!.primitiveUsage.value + turns[1]!.primitiveUsage.value) / 2;
    const a = (turns[0]!.argumentCorrectness.value + turns[1]!.argumentCorrectness.value) / 2;
    expect(out.value).toBe(Math.min(p, a));
    for (const t of turns) for (const v of [t.primitiveUsage.value, t.argumentCorrectness.value]) expect([0, 1 / 3, 2 / 3, 1]).toContain(v);
    expect(out.value).toBeGreaterThan(0.6); // a clean two-turn session
  });
});

describe('system_one mode', () => {
  it('one System One request answers three questions; weighted mean (a low answer weighing more), confidence, no LLM call, zero cost', async () => {
    const stub = new StubSystemOne();
    const before = server.requests.length;
    const out = await run(createMCPUse(base(stub)), { eval_mode: 'system_one' });
    expect(server.requests.length).toBe(before);
    expect(stub.requests).toEqual([{ questions: ['primitives', 'arguments', 'task'] }]);
    expect(out.value).toBeCloseTo(SCORE, 12);
    expect(out.value).toBeCloseTo(0.35027, 5);
    expect(out.details!.confidence).toBeCloseTo(CONFIDENCE, 12);
    expect(out.details!.weights).toEqual({ primitives: 1 / 3, arguments: 1 / 3, task: 1 / 3 });
    expect(out.evaluation).toBeUndefined();
    expect(out.details).not.toHaveProperty('judgeModel');
    expect(out.reasoning).toBe(
      'System One (stub) answered: primitives — mostly yes (level 2/3, p=0.5); arguments — yes (level 3/3, p=0.4); task — no (level 0/3, p=0.7).\n' +
        'Score = weighted mean 0.35 (weights: primitives 0.107, arguments 0.177, task 0.716; a lower answer weighs more); confidence 0.626.',
    );
    const answers = out.details!.answers as Array<{ question: string; probabilities: number[] }>;
    expect(answers.map((a) => a.probabilities)).toEqual(SYSTEM_ONE_QUESTIONS.map((q) => PROBS[q]));
  });

  it('a System One failure fails the computation (no LLM to fall back on), flaky or not: flaky is a mark, not a retry', async () => {
    await expect(run(createMCPUse(base(new StubSystemOne(['task']))), { eval_mode: 'system_one' })).rejects.toThrow('System One is down');
    let calls = 0;
    const once: SystemOneModel = {
      id: 'once',
      answer: async (req) => {
        if (calls++ === 0) throw new Error('cold start');
        return { model: 'once', answers: req.questions.map((q) => answerFrom(q, PROBS[q])) };
      },
    };
    await expect(run(createMCPUse(base(once)), { eval_mode: 'system_one', flaky: true })).rejects.toThrow('cold start');
    expect(calls).toBe(1);
    const out = await run(createMCPUse(base(once)), { eval_mode: 'system_one', flaky: true });
    expect(out.value).toBeCloseTo(SCORE, 12);
    expect(out.details).toMatchObject({ flaky: true });
    expect(out.details).not.toHaveProperty('firstAttemptError');
  });

  it('confidence is reported beside the score (details.confidence) in system_one and hybrid', async () => {
    const s1 = await run(createMCPUse(base(new StubSystemOne())), { eval_mode: 'system_one' });
    expect(s1.details!.confidence).toBeCloseTo(CONFIDENCE, 12);
    expect(s1.reasoning).toContain(`confidence ${Math.round(CONFIDENCE * 1000) / 1000}`);
    hybridScript();
    const h = await run(createMCPUse(base(new StubSystemOne())), { eval_mode: 'hybrid' });
    expect(h.details!.confidence).toBeCloseTo((0.5 + 0.4) / 2, 12); // primitives 0.5, arguments 0.4
    const fallback = await run(createMCPUse(base(new StubSystemOne(['arguments']))), { eval_mode: 'hybrid' });
    expect(fallback.details!.confidence).toBe(0.5); // only the decision System One made
  });

  it('verbose_mode prints each question, its answer and probability to stderr (system_one), and the extraction prompt (hybrid)', async () => {
    const printed: string[] = [];
    const verboseOutput = (t: string) => printed.push(t);
    await run(createMCPUse(base(new StubSystemOne(), { verboseOutput })), { eval_mode: 'system_one' });
    expect(printed).toEqual([]);
    await run(createMCPUse(base(new StubSystemOne(), { verboseOutput })), { eval_mode: 'system_one', verbose_mode: true });
    expect(printed.join('')).toBe(
      [
        '[MCPUse verbose] system-one (stub)',
        '  Q primitives: Were the right MCP primitives chosen, with no better one missed and no needless call?',
        '  A mostly yes (level 2/3), p=0.5, value 0.833',
        '  Q arguments: Were the arguments of the MCP calls correct: types, structure, required fields, values grounded in the request?',
        '  A yes (level 3/3), p=0.4, value 0.667',
        "  Q task: Did the MCP calls and the reply serve the user's request?",
        '  A no (level 0/3), p=0.7, value 0.2',
        '',
      ].join('\n'),
    );
    printed.length = 0;
    hybridScript();
    const before = server.requests.length;
    await run(createMCPTaskCompletion(base(new StubSystemOne(), { verboseOutput })), { eval_mode: 'hybrid', verbose_mode: true });
    const text = printed.join('');
    const sent = server.requests.slice(before).map((r) => r.body.messages?.[1]?.content ?? '');
    expect(sent).toHaveLength(2);
    for (const prompt of sent) expect(text).toContain(prompt);
    expect(text).toContain('[MCPTaskCompletion verbose] turn 2 llm-prompt extraction to gpt-4o:');
    expect(text).toContain('[MCPTaskCompletion verbose] turn 2 system-one (stub)');
  });

  it('weights are configurable (array or per question) and normalised', async () => {
    const stub = new StubSystemOne();
    const a = await run(createMCPUse(base(stub)), { eval_mode: 'system_one', system_one_weights: [2, 1, 1] });
    const twice = { primitives: 2, arguments: 1, task: 1 };
    expect(a.value).toBeCloseTo(decisiveMean(VALUES, twice), 12);
    expect(a.value).toBeGreaterThan(SCORE); // more weight on the high primitives answer
    // The confidence is weighted like the score.
    expect(a.details!.confidence).toBeCloseTo(decisiveMean(CONFIDENCES, twice), 12);
    const b = await run(createMCPUse(base(stub)), { eval_mode: 'system_one', system_one_weights: { task: 0 } });
    const noTask = { primitives: 1, arguments: 1, task: 0 };
    expect(b.value).toBeCloseTo(decisiveMean(VALUES, noTask), 12);
    expect(b.details!.confidence).toBeCloseTo(decisiveMean(CONFIDENCES, noTask), 12);
    expect(b.details!.weights).toEqual({ primitives: 0.5, arguments: 0.5, task: 0 });
    expect((b.details!.effectiveWeights as Record<string, number>).task).toBe(0);
  });

  it('MultiTurnMCPUse: one request per turn, per-question means, weighted mean', async () => {
    const stub = new StubSystemOne();
    const out = await run(createMultiTurnMCPUse(base(stub)), { eval_mode: 'system_one' });
    expect(stub.requests).toHaveLength(2);
    expect(out.value).toBeCloseTo(SCORE, 12); // the same answers in both turns: their means are those answers
    expect(out.reasoning).toContain('turn 2: primitives — mostly yes (level 2/3, p=0.5)');
  });

  it('MCPTaskCompletion: the task answer per turn, averaged', async () => {
    const stub = new StubSystemOne();
    const out = await run(createMCPTaskCompletion(base(stub)), { eval_mode: 'system_one', threshold: 0.1 });
    expect(stub.requests.map((r) => r.questions)).toEqual([['task'], ['task']]);
    expect(out.value).toBeCloseTo(0.2, 12);
    expect(out.details).toMatchObject({ confidence: 0.7, success: true, threshold: 0.1 });
  });

  it('with the default local model: a clean session scores high, a broken one low, deterministically', async () => {
    const metric = createMCPUse({ judge, env: {}, persistedEvalMode: () => undefined });
    const good = await run(metric, { eval_mode: 'system_one' });
    expect(good.details).toMatchObject({ systemOneModel: 'jev-latest', evalMode: 'system_one' });
    const local = await new LocalSystemOne().answer({ interaction: wholeInteraction(sessionConversation(weatherSession())), questions: SYSTEM_ONE_QUESTIONS });
    const w = local.answers.map((a) => Math.exp(-3 * a.value));
    expect(good.value).toBeCloseTo(local.answers.reduce((s, a, i) => s + w[i]! * a.value, 0) / w.reduce((x, y) => x + y, 0), 12);
    expect(good.value).toBeGreaterThan(0.8);
    const broken = weatherSession({ forecastArgs: { days: 'three', unit: 'C' }, forecastError: 'Invalid arguments: missing required property "city"' });
    const bad = await run(metric, { eval_mode: 'system_one' }, broken);
    expect(bad.value).toBeLessThan(0.5);
    expect((await run(metric, { eval_mode: 'system_one' }, broken)).value).toBe(bad.value);
    // verbose_mode: the step carries the signals the answers rest on
    const verbose = await run(metric, { eval_mode: 'system_one', verbose_mode: true }, broken);
    const step = (verbose.details!.steps as Array<{ step: string; model: string; evidence: Record<string, number> }>)[0]!;
    expect(step).toMatchObject({ step: 'system-one', model: 'jev-latest' });
    // one of the two calls lacks `city`, has an unknown `unit` and a mistyped `days`, and failed
    expect(step.evidence).toMatchObject({ schema_invalid: 0.5, missing_required: 0.5, unknown_argument: 0.5, type_error: 0.5, error_result: 0.5, unrecovered_error: 1, argument_error_result: 1 });
    expect(verbose.value).toBe(bad.value);
  });
});

describe('the endpoint System One model', () => {
  const letter = (p: Record<string, number>) => {
    const entries = Object.entries(p);
    return [{ token: entries[0]![0], logprob: Math.log(entries[0]![1]), top_logprobs: entries.map(([token, q]) => ({ token, logprob: Math.log(q) })) }];
  };

  it('asks each question as a one-token A–D classification and turns the log-probabilities into levels', async () => {
    server.setScript(() => ({ text: 'D', logprobs: letter({ D: 0.6, C: 0.3, ' B': 0.1 }), usage: { prompt_tokens: 50, completion_tokens: 1, total_tokens: 51 } }));
    const before = server.requests.length;
    const out = await run(createMCPUse({ judge, env: {}, persistedEvalMode: () => undefined }), {
      eval_mode: 'system_one',
      system_one_model: 'endpoint:tiny-classifier',
    });
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.body).toMatchObject({ model: 'tiny-classifier', max_tokens: 1, logprobs: true, temperature: 0 });
      expect(r.body.messages?.[0]?.content).toContain('A = clearly no, B = mostly no, C = mostly yes, D = clearly yes');
    }
    // probabilities [0, 0.1, 0.3, 0.6]: value (0.1 + 0.6 + 1.8)/3 = 0.8333 for each question
    expect(out.value).toBeCloseTo(2.5 / 3, 10);
    expect(out.details!.confidence).toBeCloseTo(0.6, 10);
    expect(out.evaluation).toMatchObject({ model: 'tiny-classifier', promptTokens: 150, completionTokens: 3, totalTokens: 153 });
    // Priced by the passed judge's own pricing (a flat 0.001 USD per priced usage), not the default price table
    expect(out.evaluation!.costUsd).toBe(0.001);
    expect(out.details!.systemOneModel).toBe('endpoint:tiny-classifier');
  });

  it('asks through one judge per endpoint model, derived from the metric judge, across asks and computations', async () => {
    server.setScript(() => ({ text: 'C', omitLogprobs: true }));
    const judges = new Set<Judge>();
    const complete = Judge.prototype.complete;
    const spy = vi.spyOn(Judge.prototype, 'complete').mockImplementation(function (this: Judge, request) {
      judges.add(this);
      return complete.call(this, request);
    });
    try {
      const metric = createMultiTurnMCPUse({ judge, env: {}, persistedEvalMode: () => undefined });
      const options = { eval_mode: 'system_one', system_one_model: 'endpoint:reused' };
      await run(metric, options); // one ask per turn
      await run(metric, options);
    } finally {
      spy.mockRestore();
    }
    expect([...judges]).toEqual([judge.withModel('reused')]);
  });

  it('without log-probabilities the letter is taken as certain', async () => {
    server.setScript(() => ({ text: 'B', omitLogprobs: true }));
    const out = await run(createMCPUse({ judge, env: {}, persistedEvalMode: () => undefined }), {
      eval_mode: 'system_one',
      system_one_model: 'endpoint:plain',
    });
    expect(out.value).toBeCloseTo(1 / 3, 12);
    expect(out.details!.confidence).toBe(1);
  });

  it('in hybrid mode an endpoint that answers nonsense falls back to the LLM judge', async () => {
    server.setScript((b) => {
      const sys = b.messages?.[0]?.content ?? '';
      if (sys.startsWith('You read an MCP agent interaction')) return { text: EXTRACTION };
      if (b.model === 'confused') return { text: 'Maybe', omitLogprobs: true };
      return { text: 'ok\nScore: 4' };
    });
    const out = await run(createMCPUse({ judge, env: {}, persistedEvalMode: () => undefined }), {
      eval_mode: 'hybrid',
      system_one_model: 'endpoint:confused',
    });
    expect(out.value).toBe(0.75);
    expect(out.details).toMatchObject({
      decisions: { primitiveUsage: { decidedBy: 'llm', systemOneError: 'endpoint:confused: reply "Maybe" is not one of A–D' } },
    });
    // Extraction, then per sub-score the failed System One call and the judge's: all five are counted.
    expect(server.requests).toHaveLength(5);
    expect(out.evaluation).toMatchObject({ promptTokens: 500, completionTokens: 100, totalTokens: 600 });
  });
});

describe('where the eval mode comes from', () => {
  const stub = new StubSystemOne();
  it('metric option > MCE_EVAL_MODE > persisted user config > llm', async () => {
    const withAll = base(stub, { env: { MCE_EVAL_MODE: 'system_one' }, persistedEvalMode: () => 'hybrid' });
    hybridScript(5);
    expect((await run(createMCPUse(withAll), { eval_mode: 'llm' })).details).toMatchObject({ evalMode: 'llm', evalModeSource: 'metric' });
    expect((await run(createMCPUse(withAll))).details).toMatchObject({ evalMode: 'system_one', evalModeSource: 'env' });
    const persisted = base(stub, { persistedEvalMode: () => 'hybrid' });
    expect((await run(createMCPUse(persisted))).details).toMatchObject({ evalMode: 'hybrid', evalModeSource: 'user-config' });
    expect((await run(createMCPUse(base(stub)))).details).toMatchObject({ evalMode: 'llm', evalModeSource: 'default' });
  });

  it('the process-wide persisted mode (set by the client) is used by default', async () => {
    setPersistedEvalMode('system_one');
    try {
      const out = await run(createMCPUse({ judge, env: {}, systemOne: () => stub }));
      expect(out.details).toMatchObject({ evalMode: 'system_one', evalModeSource: 'user-config' });
    } finally {
      setPersistedEvalMode(undefined);
    }
  });

  it('an invalid MCE_EVAL_MODE fails naming the variable', async () => {
    await expect(run(createMCPUse(base(stub, { env: { MCE_EVAL_MODE: 'turbo' } })))).rejects.toThrow(
      'MCE_EVAL_MODE: eval mode "turbo" is not one of llm, hybrid, system_one',
    );
  });
});

it('turn 2 of the weather session is the follow-up question', () => {
  expect(sessionConversation(weatherSession()).turns.map((t) => t.request)[1]).toBe(TURN2);
});
