import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MetricRegistry, type Metric, type MetricValue, type OntologyLevel } from '@mce/core';
import { usageOfError } from '@mce/provider-native';
import { opikMetrics, opikProvider } from '@mce/provider-opik';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../test-support/scripted-llm-server.mjs';
import { judgeOn } from '../../../test-support/judge-env.js';
import { ANSWER, QUESTION, RETRIEVED, ragSession, valueAt, failureAt } from '../../../test-support/library-session.js';

const MODEL = 'gpt-4o-mini';
const ONE_CALL = { model: MODEL, promptTokens: 100, completionTokens: 20, totalTokens: 120, costUsd: expect.closeTo(140e-6, 12) };

let server: ScriptedLLMServer;
let metrics: Map<string, Metric>;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  // No retries: the AI SDK's own retries (its default 2) still pass through the counting fetch.
  const judge = judgeOn(server.url, MODEL, { MCE_JUDGE_MAX_RETRIES: '0' });
  metrics = new Map(opikMetrics(() => judge).map((m) => [m.metadata.name, m]));
});
afterAll(() => server.close());
beforeEach(() => server.setScript([]));

async function valueOf(name: string, reply: unknown, options: Record<string, unknown> = {}, session = ragSession(), level: OntologyLevel = 'Session'): Promise<MetricValue> {
  server.setScript([{ text: typeof reply === 'string' ? reply : JSON.stringify(reply) }]);
  return valueAt(metrics.get(name)!, session, level, options);
}

const failureOf = (name: string, session = ragSession(), options: Record<string, unknown> = {}): Promise<Error> =>
  failureAt(metrics.get(name)!, session, 'Session', options);

const prompt = () => server.requests[0]?.body.messages?.[0]?.content ?? '';

describe('opik provider', () => {
  it('names its metrics opik:<Name>', () => {
    expect(opikProvider.name).toBe('opik');
    expect([...metrics.keys()]).toEqual([
      'Hallucination', 'AnswerRelevance', 'Moderation', 'Usefulness',
      'IsJson', 'Contains', 'RegexMatch', 'ExactMatch',
      'AgentTaskCompletionJudge', 'AgentToolCorrectnessJudge', 'QARelevanceJudge', 'DialogueHelpfulnessJudge', 'PromptUncertaintyJudge',
      'DemographicBiasJudge', 'PoliticalBiasJudge', 'GenderBiasJudge', 'ReligiousBiasJudge', 'RegionalBiasJudge', 'ComplianceRiskJudge',
    ]);
  });

  it('resolves the telemetry-hub spelling opik.<Name> of every metric', () => {
    const registry = new MetricRegistry();
    registry.registerProvider(opikProvider);
    for (const name of metrics.keys()) expect(registry.get(`opik.${name}`)?.key).toBe(`opik:${name}`);
  });

  it('Hallucination: input, context (the tool results) and output in one prompt; the verdict as the score', async () => {
    const result = await valueOf('Hallucination', { score: 1, reason: 'adds a claim' });
    expect(result).toMatchObject({ value: 1, reasoning: 'adds a claim' });
    expect(prompt()).toContain(`INPUT (for context only, not to be used for faithfulness evaluation):\n${QUESTION}`);
    expect(prompt()).toContain(`CONTEXT:\n${JSON.stringify([`search_docs: ${RETRIEVED}`])}`);
    expect(prompt()).toContain(`OUTPUT:\n${ANSWER}`);
    expect(server.requests[0]!.body).toMatchObject({ model: MODEL, temperature: 0, response_format: { type: 'json_schema' } });
    expect(result.evaluation).toEqual(ONE_CALL);
    expect(result.details).toMatchObject({ lowerIsBetter: true, judgeCalls: 1, library: 'opik@2.0.40' });
  });

  it('Hallucination without tool results judges input and output only', async () => {
    await valueOf('Hallucination', { score: 0, reason: 'ok' }, {}, ragSession('r', { tools: false }));
    expect(prompt()).not.toContain('CONTEXT:');
    expect(prompt()).toContain(ANSWER);
  });

  it('AnswerRelevance: scored with the context; without one, fails unless require_context is false (as the library)', async () => {
    const result = await valueOf('AnswerRelevance', { answer_relevance_score: 0.9, reason: 'on point' });
    expect(result.value).toBe(0.9);
    expect(prompt()).toContain(RETRIEVED);
    const bare = ragSession('r', { tools: false });
    server.setScript([]);
    expect((await failureOf('AnswerRelevance', bare)).message).toMatch(/requires context by default/);
    expect(server.requests).toHaveLength(0);
    expect((await valueOf('AnswerRelevance', { answer_relevance_score: 0.5, reason: 'r' }, { require_context: false }, bare)).value).toBe(0.5);
  });

  it('Moderation judges the response alone, also of one LLM call', async () => {
    const result = await valueOf('Moderation', { score: 0.1, reason: 'safe' }, {}, ragSession(), 'LLMCall');
    expect(result.value).toBe(0.1);
    expect(prompt()).toContain(ANSWER);
    expect(prompt()).not.toContain(QUESTION);
  });

  it('Usefulness judges the input and the response', async () => {
    const result = await valueOf('Usefulness', { score: 0.8, reason: 'helpful' }, {}, ragSession(), 'AgentCall');
    expect(result.value).toBe(0.8);
    expect(prompt()).toContain(QUESTION);
    expect(result.evaluation).toEqual(ONE_CALL);
  });
});

describe('opik failures are failed results, never 0', () => {
  it('a score outside the library\'s range fails with the usage of the call', async () => {
    server.setScript([{ text: JSON.stringify({ score: 7, reason: 'r' }) }]);
    const error = await failureOf('Usefulness');
    expect(error.message).toMatch(/^opik:Usefulness: /);
    expect(usageOfError(error)).toEqual(ONE_CALL);
  });

  it('a reply that is not JSON fails', async () => {
    server.setScript([], { text: 'I would say it is fine.' });
    expect((await failureOf('Moderation')).message).toMatch(/^opik:Moderation: /);
  });

  it('an endpoint error says what the endpoint answered', async () => {
    server.setScript([{ status: 400, error: { message: 'model not found: gpt-4o-mini', type: 'invalid_request_error' } }]);
    const error = await failureOf('Hallucination');
    expect(error.message).toBe('opik:Hallucination: Failed to generate structured output with model gpt-4o-mini: model not found: gpt-4o-mini');
    expect((error as Error & { transient?: boolean }).transient).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  it('no response to judge fails before any call', async () => {
    const s = ragSession('r');
    s.finalResponse = undefined;
    s.agentCalls = [];
    s.llmCalls = [];
    expect((await failureOf('Moderation', s)).message).toMatch(/opik:Moderation: session r has no response/);
    expect(server.requests).toHaveLength(0);
  });
});
