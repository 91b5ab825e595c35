import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Metric, type MetricValue, type OntologyLevel, type Session } from '@mce/core';
import { usageOfError } from '@mce/provider-native';
import { opikMetrics } from '@mce/provider-opik';
import { startScriptedLLMServer, type ScriptedLLMServer, type ScriptedStep } from '../../../test-support/scripted-llm-server.mjs';
import { judgeOn } from '../../../test-support/judge-env.js';
import { ANSWER, QUESTION, RETRIEVED, ragSession, metricContext, valueAt, failureAt } from '../../../test-support/library-session.js';

// Opik keeps a G-Eval rubric's evaluation steps per model for the process: each test judges with a model of its
// own, so that its first computation asks for them (two calls) whatever ran before.
let models = 0;
const freshModel = () => `judge-model-${++models}`;
const calls = (model: string, n: number) => ({
  model, promptTokens: 100 * n, completionTokens: 20 * n, totalTokens: 120 * n, costUsd: expect.closeTo(n * 140e-6, 12),
});

const STEPS = '1. Read the task.\n2. Check the outcome.';
const reply = (score: unknown, reason = 'because'): ScriptedStep => ({ text: JSON.stringify({ score, reason }) });

let server: ScriptedLLMServer;
let metrics: Map<string, Metric>;
beforeAll(async () => {
  server = await startScriptedLLMServer();
  const judge = judgeOn(server.url, 'gpt-4o-mini', { MCE_JUDGE_MAX_RETRIES: '0' });
  metrics = new Map(opikMetrics(() => judge).map((m) => [m.metadata.name, m]));
});
afterAll(() => server.close());
beforeEach(() => server.setScript([]));

const ctx = metricContext;

/** The judge's evaluation steps, then `steps` as the score replies; the metric's value. */
async function judged(
  name: string,
  steps: ScriptedStep[],
  options: { session?: Session; level?: OntologyLevel; model?: string; options?: Record<string, unknown> } = {},
): Promise<MetricValue> {
  const session = options.session ?? ragSession();
  const level = options.level ?? 'Session';
  server.setScript([{ text: STEPS }, ...steps]);
  return valueAt(metrics.get(name)!, session, level, { model: options.model ?? freshModel(), ...options.options });
}

/** The judge's evaluation steps, then `steps` (`raw`: `steps` alone); the error the computation fails with. */
async function failure(name: string, steps: ScriptedStep[], session = ragSession(), { raw = false } = {}): Promise<Error> {
  server.setScript(raw ? steps : [{ text: STEPS }, ...steps]);
  return failureAt(metrics.get(name)!, session, 'Session', { model: freshModel() });
}

const promptOf = (i: number) => server.requests[i]?.body.messages?.[0]?.content ?? '';
/** The text Opik judges: what its scoring prompt shows between `*** INPUT:` and `*** OUTPUT:`. */
const judgedText = (i = 1) => /\*\*\* INPUT:\n([\s\S]*)\n\n\*\*\* OUTPUT:/.exec(promptOf(i))?.[1];

describe('opik G-Eval judges', () => {
  it('AgentTaskCompletionJudge: task, trajectory and final output; the 0-10 verdict divided by 10; both calls counted', async () => {
    const model = freshModel();
    const result = await judged('AgentTaskCompletionJudge', [{ ...reply(7, 'answered, one source'), logprobs: [{ token: '7', logprob: -0.1 }] }], { model });
    expect(result).toMatchObject({ value: 0.7, reasoning: 'answered, one source', details: { judgeCalls: 2, library: 'opik@2.0.40' } });
    expect(result.evaluation).toEqual(calls(model, 2));
    expect(promptOf(0)).toContain('generate a detailed Chain of Thought');
    expect(promptOf(0)).toContain('You evaluate whether an agent completed the assigned task based on the conversation and tool traces.');
    expect(promptOf(1)).toContain(`\n\n${STEPS}\n\n*** INPUT:`);
    expect(judgedText()).toBe(
      [
        `TASK:\n${QUESTION}`,
        'TRAJECTORY (messages, tool calls and results, in order):\n' +
          `[tool call search_docs #call_1] {"query":"Eiffel Tower completed"}\n[tool result search_docs] ${RETRIEVED}\n[user] ${QUESTION}\n[assistant (guide)] ${ANSWER}`,
        `FINAL OUTPUT:\n${ANSWER}`,
      ].join('\n\n'),
    );
    // Structured output as Opik asks it, on mce's judge settings; no log-probabilities (see judge-model.ts).
    expect(server.requests[1]!.body).toMatchObject({ model, temperature: 0, response_format: { type: 'json_schema' } });
    expect(server.requests[1]!.body.logprobs).toBeUndefined();
    expect(server.requests[1]!.body.top_logprobs).toBeUndefined();
    // The evaluation steps are kept for the model: the next computation makes one call.
    server.setScript([reply(10)]);
    const again = await metrics.get('AgentTaskCompletionJudge')!.compute(ragSession(), ctx(ragSession(), 'Session', { model }));
    expect(again).toMatchObject({ value: 1, evaluation: calls(model, 1), details: { judgeCalls: 1 } });
  });

  it('AgentTaskCompletionJudge: the task option in place of the user input', async () => {
    const session = ragSession();
    session.userInput = undefined;
    const result = await judged('AgentTaskCompletionJudge', [reply(4)], { session, options: { task: '  Give the year and the architect.  ' } });
    expect(result.value).toBe(0.4);
    expect(judgedText()).toMatch(/^TASK:\nGive the year and the architect\.\n\nTRAJECTORY/);
  });

  it('AgentToolCorrectnessJudge: the tools offered and each call with its arguments and result (or error)', async () => {
    const session = ragSession();
    session.llmCalls[0]!.toolDefinitions = [{ name: 'search_docs', description: 'Full-text search of the docs' }, { name: 'calculator' }];
    session.toolCalls.push({
      ...session.toolCalls[0]!, id: 'tool-2', toolName: 'calculator', toolCallId: 'call_2', startTime: 32, endTime: 33, status: 'error',
      arguments: { expression: '1889-1887' }, result: undefined, error: { type: 'ValueError', message: 'bad expression' },
    });
    const result = await judged('AgentToolCorrectnessJudge', [reply(5, 'one failed call')], { session, level: 'AgentCall' });
    expect(result.value).toBe(0.5);
    expect(judgedText()).toBe(
      [
        `TASK:\n${QUESTION}`,
        'TOOLS AVAILABLE:\n- search_docs: Full-text search of the docs\n- calculator',
        `TOOL CALLS (in order: tool(arguments) → result):\n1. search_docs({"query":"Eiffel Tower completed"})\n   → ${RETRIEVED}\n` +
          '2. calculator({"expression":"1889-1887"})\n   → error: ValueError: bad expression',
        `FINAL OUTPUT:\n${ANSWER}`,
      ].join('\n\n'),
    );
  });

  it('AgentToolCorrectnessJudge without a tool call fails before any call', async () => {
    const error = await failure('AgentToolCorrectnessJudge', [], ragSession('r', { tools: false }));
    expect([error.name, error.message]).toEqual(['MissingJudgeInputError', 'opik:AgentToolCorrectnessJudge: session r has no tool calls to judge']);
    expect(server.requests).toHaveLength(0);
  });

  it('QARelevanceJudge: question and answer, with the tool results as context when there are any', async () => {
    expect((await judged('QARelevanceJudge', [reply(9)])).value).toBe(0.9);
    expect(judgedText()).toBe(`QUESTION:\n${QUESTION}\n\nCONTEXT:\nsearch_docs: ${RETRIEVED}\n\nANSWER:\n${ANSWER}`);
    await judged('QARelevanceJudge', [reply(8)], { level: 'LLMCall' });
    expect(judgedText()).toBe(`QUESTION:\n${QUESTION}\n\nANSWER:\n${ANSWER}`);
  });

  it('DialogueHelpfulnessJudge: the dialogue, then the reply judged', async () => {
    expect((await judged('DialogueHelpfulnessJudge', [reply(6)], { level: 'LLMCall' })).value).toBe(0.6);
    expect(judgedText()).toBe(`DIALOGUE:\n[user] ${QUESTION}\n[assistant] ${ANSWER}\n\nASSISTANT REPLY TO JUDGE:\n${ANSWER}`);
  });

  it('PromptUncertaintyJudge: the user input alone; lower is better', async () => {
    const result = await judged('PromptUncertaintyJudge', [reply(2, 'clear')], { level: 'AgentCall' });
    expect(result).toMatchObject({ value: 0.2, reasoning: 'clear', details: { lowerIsBetter: true } });
    expect(judgedText()).toBe(QUESTION);
  });

  it.each([
    ['DemographicBiasJudge', 'demographic bias'],
    ['PoliticalBiasJudge', 'political neutrality'],
    ['GenderBiasJudge', 'gender bias'],
    ['ReligiousBiasJudge', 'bias towards any religion'],
    ['RegionalBiasJudge', 'geographic or cultural bias'],
    ['ComplianceRiskJudge', 'compliance officer for regulated industries'],
  ])('%s: the response alone, with its own rubric; lower is better', async (name, rubric) => {
    const model = freshModel();
    const result = await judged(name, [reply(0, 'none found')], { model, level: 'LLMCall' });
    expect(result).toMatchObject({ value: 0, reasoning: 'none found', details: { lowerIsBetter: true }, evaluation: calls(model, 2) });
    expect(promptOf(0)).toContain(rubric);
    expect(promptOf(1)).toContain(rubric);
    expect(judgedText()).toBe(ANSWER);
  });

  it('metadata: the 0-1 scale of a 0-10 score; options: the judge model (and the task)', () => {
    const judge = metrics.get('AgentTaskCompletionJudge')!.metadata;
    expect(judge).toMatchObject({ nature: 'llm-judged', valueRange: '0.0-1.0', options: ['model', 'task'], levels: ['Session', 'MASCall', 'AgentCall'] });
    expect(metrics.get('QARelevanceJudge')!.metadata.options).toEqual(['model']);
    expect(judge.description).toMatch(/a 0-10 G-Eval score divided by 10/);
    expect(metrics.get('GenderBiasJudge')!.metadata.levels).toEqual(['Session', 'MASCall', 'AgentCall', 'LLMCall']);
  });
});

describe('opik G-Eval failures are failed results, never 0', () => {
  it('a score outside 0-10: Opik asks once more, then fails; all three calls counted', async () => {
    const error = await failure('QARelevanceJudge', [reply(11), reply(12)]);
    expect(error.message).toBe('opik:QARelevanceJudge: Failed to calculate g-eval score. The model output could not be parsed.: LLM returned score outside of [0, 10] range: 12');
    expect(server.requests).toHaveLength(3);
    expect(usageOfError(error)).toMatchObject({ promptTokens: 300, completionTokens: 60, totalTokens: 360, costUsd: expect.closeTo(420e-6, 12) });
  });

  it('a reply that is not JSON fails', async () => {
    const error = await failure('ComplianceRiskJudge', [{ text: 'Seems compliant to me.' }, { text: 'Still fine.' }]);
    expect(error.message).toMatch(/^opik:ComplianceRiskJudge: /);
    expect(usageOfError(error)?.promptTokens).toBe(100 * server.requests.length);
  });

  it('the endpoint refusing the request fails with its error, the call counted', async () => {
    const error = await failure('GenderBiasJudge', [{ status: 401, error: { message: 'invalid api key', type: 'invalid_request_error' } }], ragSession(), { raw: true });
    expect(error.message).toMatch(/^opik:GenderBiasJudge: Failed to generate text with model judge-model-\d+: invalid api key$/);
    expect((error as Error & { transient?: boolean }).transient).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(usageOfError(error)).toMatchObject({ promptTokens: 0, completionTokens: 0 });
  });

  it('an overloaded endpoint, after the AI SDK\'s own retries, is a transient failure (retried later, not stored)', async () => {
    const busy: ScriptedStep = { status: 503, error: { message: 'overloaded' }, headers: { 'retry-after-ms': '1' } };
    const error = await failure('RegionalBiasJudge', [busy, busy, busy], ragSession(), { raw: true });
    expect(error.message).toMatch(/^opik:RegionalBiasJudge: .*overloaded/);
    expect((error as Error & { transient?: boolean }).transient).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it('missing inputs fail before any call', async () => {
    const bare = ragSession('b', { tools: false });
    bare.userInput = undefined;
    bare.agentCalls = [];
    bare.llmCalls = [];
    expect((await failure('AgentTaskCompletionJudge', [], bare)).message).toBe('opik:AgentTaskCompletionJudge: session b has no user input');
    expect((await failure('DialogueHelpfulnessJudge', [], bare)).message).toBe('opik:DialogueHelpfulnessJudge: session b has no dialogue (no LLM messages) to judge');
    expect(server.requests).toHaveLength(0);
  });
});
