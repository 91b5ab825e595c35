import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isSkip, type Element, type Metric, type MetricValue, type OntologyLevel, type Session } from '@mce/core';
import {
  Judge,
  MissingJudgeInputError,
  createLLMJudgedMetrics,
  judgeConfigFromEnv,
  resetLogprobSupport,
  AnswerRelevancy,
  setDefaultJudge,
} from '@mce/provider-native';
import { scoreTokens, startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';
import { bookingSession, emptySession, FINAL_RESPONSE, USER_INPUT } from './support/conversation.js';
import { contextFor } from '../support/session-builder.js';

let server: ScriptedLLMServer;
let metrics: Map<string, Metric>;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  const judge = new Judge(
    judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url }),
    { pricing: () => 0.001 },
  );
  metrics = new Map(createLLMJudgedMetrics(judge).map((m) => [m.metadata.name, m]));
});
afterAll(() => server.close());
beforeEach(() => resetLogprobSupport());

function elementAt(session: Session, level: OntologyLevel): Element {
  if (level === 'Session') return session;
  if (level === 'AgentCall') return session.agentCalls[0]!;
  if (level === 'LLMCall') return session.llmCalls[1]!;
  if (level === 'ToolCall') return session.toolCalls[0]!;
  throw new Error(level);
}

const TOOL_JSON = '{"trains":[{"id":"TGV 6601","departs":"09:04","arrives":"11:00"}]}';
const TRANSCRIPT = '[assistant (planner) → tool call search_trains #call_1]';

// metric, level, what the judge prompt must contain
const CASES: Array<[string, OntologyLevel, string[]]> = [
  ['AnswerRelevancy', 'Session', [`## User input\n${USER_INPUT}`, `## Response to judge\n${FINAL_RESPONSE}`]],
  ['AnswerRelevancy', 'AgentCall', ['agent call planner (agent-1)', USER_INPUT, FINAL_RESPONSE]],
  ['AnswerRelevancy', 'LLMCall', ['LLMCall llm-2', `## User input\n${USER_INPUT}`, `## Response to judge\n${FINAL_RESPONSE}`]],
  ['Groundedness', 'Session', [USER_INPUT, TOOL_JSON, FINAL_RESPONSE]],
  ['Groundedness', 'AgentCall', [TOOL_JSON, FINAL_RESPONSE]],
  ['IntentRecognitionAccuracy', 'Session', [`## User input\n${USER_INPUT}`, TRANSCRIPT]],
  ['TaskCompletion', 'Session', [USER_INPUT, TRANSCRIPT, TOOL_JSON, FINAL_RESPONSE]],
  ['TaskCompletion', 'AgentCall', [USER_INPUT, TRANSCRIPT, FINAL_RESPONSE]],
  [
    'ToolUtilizationAccuracy',
    'ToolCall',
    [
      'tool call search_trains (tool-1), call id #call_1',
      '## Tool definition\nFinds trains between two stations',
      '## Arguments\n{"from":"Paris","to":"Lyon","time":"09:00"}',
      `## Output\n${TOOL_JSON}`,
      FINAL_RESPONSE,
    ],
  ],
  ['GoalSuccessRate', 'Session', [USER_INPUT, TRANSCRIPT, `## Final response\n${FINAL_RESPONSE}`]],
  ['ResponseCompleteness', 'AgentCall', [USER_INPUT, FINAL_RESPONSE]],
  ['Consistency', 'Session', [TRANSCRIPT, TOOL_JSON]],
  ['ContextPreservation', 'AgentCall', [TRANSCRIPT, FINAL_RESPONSE]],
  ['InformationRetention', 'Session', [USER_INPUT, TRANSCRIPT]],
  ['WorkflowCohesionIndex', 'Session', ['## Agents involved\n- planner (agent-1)', TRANSCRIPT]],
  ['ComponentConflictRate', 'AgentCall', [TRANSCRIPT, FINAL_RESPONSE]],
];

describe('each LLM-judged metric', () => {
  it.each(CASES)('%s at %s shows the judge its inputs and reports the judged value', async (name, level, expected) => {
    const metric = metrics.get(name)!;
    expect(metric.metadata.levels).toContain(level);
    server.setScript([{ text: 'The reply fits.\nScore: 4', logprobs: scoreTokens('The reply fits.', { ' 4': 0.5, ' 5': 0.5 }) }]);
    const session = bookingSession();
    const outcome = (await metric.compute(elementAt(session, level), contextFor(session, level))) as MetricValue;
    expect(server.requests).toHaveLength(1);
    const [system, user] = server.requests[0]!.body.messages!;
    expect(system!.content).toContain(`Criterion:`);
    expect(system!.content).toContain((metric as unknown as { rubric: string }).rubric);
    for (const part of expected) expect(user!.content).toContain(part);
    expect(outcome.value).toBeCloseTo(0.875, 12); // expected score 4.5
    expect(outcome.reasoning).toBe('The reply fits.');
    expect(outcome.details).toMatchObject({ scoring: 'logprob', promptVersion: 1 });
    expect(outcome.evaluation).toEqual({ model: 'gpt-4o', promptTokens: 100, completionTokens: 20, totalTokens: 120, costUsd: 0.001 });
  });

  it('covers every LLM-judged metric of the catalog', () => {
    const judged = [...metrics.values()].filter((m) => m.metadata.nature === 'llm-judged').map((m) => m.metadata.name);
    expect(new Set(CASES.map(([name]) => name))).toEqual(new Set(judged));
    expect(judged).toHaveLength(12);
  });
});

describe('token usage', () => {
  it('a reply without usage counts 0 tokens and says so in details; a reply with usage does not', async () => {
    const metric = metrics.get('AnswerRelevancy')!;
    const session = bookingSession();
    server.setScript([{ text: 'ok\nScore: 5', usage: null }, { text: 'ok\nScore: 5' }]);
    const without = (await metric.compute(session, contextFor(session, 'Session'))) as MetricValue;
    expect(without.evaluation).toMatchObject({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(without.details).toMatchObject({ usageReported: false });
    const reported = (await metric.compute(session, contextFor(session, 'Session'))) as MetricValue;
    // The scripted server's default usage, as reported: 100 prompt + 20 completion = 120.
    expect(reported.evaluation).toEqual({ model: 'gpt-4o', promptTokens: 100, completionTokens: 20, totalTokens: 120, costUsd: 0.001 });
    expect(reported.details).not.toHaveProperty('usageReported');
  });
});

describe('options and cache keys', () => {
  it('a per-metric model option switches the judge model, and the cache key with it', async () => {
    const metric = metrics.get('AnswerRelevancy')!;
    const session = bookingSession();
    const plain = contextFor(session, 'Session');
    const withModel = { ...plain, options: { model: 'gpt-4o-mini' } };
    server.setScript([{ text: 'ok\nScore: 5' }]);
    const outcome = (await metric.compute(session, withModel)) as MetricValue;
    expect(server.requests[0]?.body.model).toBe('gpt-4o-mini');
    expect(outcome.evaluation?.model).toBe('gpt-4o-mini');
    const key = metric.cacheKey!(session, plain)!;
    expect(key).toMatch(/^mce\|AnswerRelevancy\|v1\|gpt-4o\|opts:[0-9a-f]{16}\|in:[0-9a-f]{64}$/);
    expect(metric.cacheKey!(session, withModel)).toMatch(/^mce\|AnswerRelevancy\|v1\|gpt-4o-mini\|/);
    expect(metric.cacheKey!(session, { ...plain, options: { threshold: 0.7 } })).not.toBe(key);
    expect(metric.cacheKey!(bookingSession(), contextFor(bookingSession(), 'Session'))).toBe(key); // same inputs, same key
    const changed = bookingSession();
    changed.finalResponse = 'Booked TGV 6603.';
    expect(metric.cacheKey!(changed, contextFor(changed, 'Session'))).not.toBe(key);
  });
});

describe('missing inputs fail, with no judge call', () => {
  it('an empty conversation', async () => {
    server.setScript([]);
    const session = emptySession();
    for (const name of ['Consistency', 'AnswerRelevancy', 'IntentRecognitionAccuracy', 'WorkflowCohesionIndex']) {
      await expect(Promise.resolve().then(() => metrics.get(name)!.compute(session, contextFor(session, 'Session')))).rejects.toThrow(
        MissingJudgeInputError,
      );
    }
    await expect(Promise.resolve().then(() => metrics.get('Consistency')!.compute(session, contextFor(session, 'Session')))).rejects.toThrow(
      'Consistency: session empty-1 has an empty conversation (no LLM messages or tool calls) to judge',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('Groundedness with a user input and a response but no context to ground it in', async () => {
    server.setScript([]);
    const session = { ...emptySession('bare-1'), userInput: 'Which train?', finalResponse: 'The 9:10 TGV.' };
    await expect(Promise.resolve().then(() => metrics.get('Groundedness')!.compute(session, contextFor(session, 'Session')))).rejects.toThrow(
      'Groundedness: session bare-1 has an empty conversation (no LLM messages or tool calls) to judge',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('a tool call without output', async () => {
    server.setScript([]);
    const session = bookingSession();
    delete session.toolCalls[0]!.result;
    await expect(
      Promise.resolve().then(() => metrics.get('ToolUtilizationAccuracy')!.compute(session.toolCalls[0]!, contextFor(session, 'ToolCall'))),
    ).rejects.toThrow('ToolUtilizationAccuracy: tool call search_trains (tool-1) has no output (result or error) to judge');
    expect(server.requests).toHaveLength(0);
  });

  it('an LLM call that answered with tool calls only is skipped, not judged', async () => {
    server.setScript([]);
    const session = bookingSession();
    const call = session.llmCalls[0]!;
    const metric = metrics.get('AnswerRelevancy')!;
    expect(await metric.compute(call, contextFor(session, 'LLMCall'))).toEqual({
      skipped: 'the LLM call answered with tool calls only: no text answer to judge',
    });
    expect(metric.cacheKey!(call, contextFor(session, 'LLMCall'))).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });

  it('no judge configured: names the variables to set', async () => {
    setDefaultJudge(new Judge(judgeConfigFromEnv({})));
    const session = bookingSession();
    await expect(Promise.resolve().then(() => AnswerRelevancy.compute(session, contextFor(session, 'Session')))).rejects.toThrow(
      'AnswerRelevancy: no LLM judge configured: set LLM_MODEL_NAME and OPENAI_API_KEY',
    );
    expect(AnswerRelevancy.cacheKey?.(session, contextFor(session, 'Session'))).toBeUndefined();
    setDefaultJudge(undefined);
  });
});

describe('MeanToolUtilizationAccuracy', () => {
  it('averages the tool-call results and skips a session without tool calls', () => {
    const mean = metrics.get('MeanToolUtilizationAccuracy')!;
    expect(mean.metadata.dependsOn).toEqual(['ToolUtilizationAccuracy']);
    const session = bookingSession();
    session.toolCalls.push({ ...session.toolCalls[0]!, id: 'tool-2' });
    const result = (value: number, id: string, tokens: number) => ({
      id, name: 'ToolUtilizationAccuracy', result: value, reasoning: '', evaluationModel: 'gpt-4o',
      evaluationPromptTokenCount: tokens, evaluationCompletionTokenCount: 10, evaluationTotalTokenCount: tokens + 10,
      evaluationCost: 0.002, timestamp: '', ofMetricType: 'mce:ToolUtilizationAccuracy',
      measures: { level: 'ToolCall' as const, id }, sessionId: session.id,
    });
    const results = [result(1, 'tool-1', 100), result(0.5, 'tool-2', 200)];
    const outcome = mean.compute(session, { ...contextFor(session, 'Session'), results: { get: () => undefined, all: () => results } }) as MetricValue;
    expect(outcome.value).toBe(0.75);
    expect(outcome.evaluation).toEqual({ model: 'gpt-4o', promptTokens: 300, completionTokens: 20, totalTokens: 320, costUsd: 0.004 });
    expect(outcome.details).toMatchObject({ scored: 2, toolCalls: 2, judgeUsage: { promptTokens: 300, totalTokens: 320, costUsd: 0.004 }, usageRestated: true });
    const none = mean.compute(emptySession(), contextFor(emptySession(), 'Session'));
    expect(isSkip(none as MetricValue)).toBe(true);
    // One judgement failed (no result): no mean over the other one.
    const partial = { ...contextFor(session, 'Session'), results: { get: () => undefined, all: () => results.slice(0, 1) } };
    expect(() => mean.compute(session, partial)).toThrow(
      "1 of the session's 2 tool call(s) have no ToolUtilizationAccuracy result (their judgement failed, see its errors, or was not computed): no mean over part of them",
    );
  });
});
