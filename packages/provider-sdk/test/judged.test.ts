/**
 * Judged sdk metrics against a scripted OpenAI-compatible server: the exact rubric and inputs reach the judge, the
 * log-probability expectation or the sample mean comes back normalised, usage and cost are summed, a reply without
 * a score and a missing input are failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSkip, type Element, type Metric, type MetricContext, type MetricValue, type OntologyLevel, type Session } from '@mce/core';
import { Judge, judgeConfigFromEnv, usageOfError, type CallUsage } from '@mce/provider-native';
import { defineSdkMetrics } from '@mce/provider-sdk';
import { scoreTokens, startScriptedLLMServer, type ScriptedLLMServer } from '../../../test-support/scripted-llm-server.mjs';
import { twoAgentSession } from './sessions.js';

// The test judge's prices: 1 µ$ a prompt token, 2 µ$ a completion token (any model).
const pricing = (_model: string, u: CallUsage) => u.promptTokens * 1e-6 + u.completionTokens * 2e-6;
const usage = { prompt_tokens: 400, completion_tokens: 50, total_tokens: 450 };

let server: ScriptedLLMServer;
const judges = new Map<string, Judge>();
function judgeWith(env: Record<string, string> = {}): () => Judge {
  const key = JSON.stringify(env);
  return () => {
    let judge = judges.get(key);
    if (!judge) {
      const config = judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o-mini', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_MAX_RETRIES: '0', ...env });
      judges.set(key, (judge = new Judge(config, { pricing })));
    }
    return judge;
  };
}
beforeAll(async () => {
  server = await startScriptedLLMServer();
});
afterAll(() => server.close());

const POLITENESS = {
  name: 'Politeness',
  kind: 'judged',
  levels: ['AgentCall', 'Session'],
  criteria: 'Is the final response polite to the user?',
  rubric: { 1: 'rude', 3: 'neutral', 5: 'very polite' },
  inputs: ['user_input', 'final_response'],
  threshold: 0.5,
};

const ctx = (session: Session, level: OntologyLevel, options: Record<string, unknown> = {}): MetricContext => ({
  session, level, options, results: { get: () => undefined, all: () => [] },
});

function metricOf(entry: Record<string, unknown>, env: Record<string, string> = {}): Metric {
  return defineSdkMetrics([entry], judgeWith(env))[0]!;
}

async function valueOf(metric: Metric, element: Element, session: Session, level: OntologyLevel, options = {}): Promise<MetricValue> {
  const outcome = await metric.compute(element as never, ctx(session, level, options) as never);
  if (isSkip(outcome)) throw new Error(outcome.skipped);
  return outcome;
}

describe('judged sdk metrics', () => {
  it('sends the criteria, the rubric and the configured inputs, and scores the log-probability expectation', async () => {
    server.requests.length = 0;
    server.setScript([{ text: 'Courteous and warm.\nScore: 4', usage, logprobs: scoreTokens('Courteous and warm.', { ' 4': 0.5, ' 5': 0.5 }) }]);
    const session = twoAgentSession();
    const result = await valueOf(metricOf(POLITENESS), session.agentCalls[0]!, session, 'AgentCall');
    const [request] = server.requests;
    expect(request!.body.messages).toEqual([
      {
        role: 'system',
        content: [
          'You are an impartial evaluator of a multi-agent system. Judge only what is shown; do not assume anything else.',
          '',
          'Criterion: Is the final response polite to the user?',
          '',
          'Rubric (scores not listed lie between their neighbours):',
          '5: very polite',
          '3: neutral',
          '1: rude',
          '',
          'Reply with a short reasoning (a few sentences), then, on the last line, exactly `Score: N` where N is an integer',
          'from 1 to 5 chosen with the rubric above.',
        ].join('\n'),
      },
      {
        role: 'user',
        content: '## Judged\nagent call planner (a1)\n\n## User input\nquestion for planner\n\n## Final response\nanswer of planner',
      },
    ]);
    expect(request!.body.model).toBe('gpt-4o-mini');
    // Expected score 4.5 on 1–5 → (4.5 − 1) / 4.
    expect(result.value).toBeCloseTo(0.875, 9);
    expect(result.reasoning).toBe('Courteous and warm.');
    expect(result.details).toMatchObject({ score: 4.5, scoring: 'logprob', threshold: 0.5, success: true });
    expect(result.evaluation).toEqual({ model: 'gpt-4o-mini', promptTokens: 400, completionTokens: 50, totalTokens: 450, costUsd: 400e-6 + 50 * 2e-6 });
  });

  it('shows evaluation steps, the default rubric, the conversation and the tools, and sums the usage of samples', async () => {
    server.requests.length = 0;
    server.setScript([{ text: 'Fine.\nScore: 2', usage }, { text: 'Good.\nScore: 5', usage }, { text: 'Ok.\nScore: 3', usage }]);
    const session = twoAgentSession();
    const metric = metricOf(
      { name: 'ToolUse', kind: 'judged', levels: ['Session'], evaluation_steps: ['List the tools called.', 'Check each result was used.'], inputs: ['messages', 'tool_arguments', 'tool_results'], model: 'gpt-4o' },
      { MCE_JUDGE_SAMPLES: '3' },
    );
    const result = await valueOf(metric, session, session, 'Session');
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((r) => r.body.model))).toEqual(new Set(['gpt-4o']));
    const [system, user] = server.requests[0]!.body.messages!;
    expect(system!.content).toContain(
      'Evaluation steps:\n1. List the tools called.\n2. Check each result was used.\n\nRubric (scores not listed lie between their neighbours):\n5: fully meets the criterion\n4: meets it, with minor lapses\n3: partly meets it\n2: barely meets it\n1: does not meet it at all',
    );
    expect(user!.content).toContain('## Tool calls and their arguments\n- search: {"q":"search"}\n- fetch: {"q":"fetch"}\n\n## Tool results\n- search: search result\n- fetch: error: timed out');
    expect(user!.content).toMatch(/## Conversation \(messages, tool calls and results, in order\)\n.*hi/s);
    expect(result.value).toBeCloseTo((10 / 3 - 1) / 4, 9);
    expect(result.details).toMatchObject({ scoring: 'sampled', sampleScores: [2, 5, 3] });
    expect(result.evaluation).toEqual({ model: 'gpt-4o', promptTokens: 1200, completionTokens: 150, totalTokens: 1350, costUsd: 1200e-6 + 150 * 2e-6 });
  });

  it('fails on a reply without a score, with the usage of the call', async () => {
    server.setScript([{ text: 'I would rather not say.', usage }]);
    const session = twoAgentSession();
    const error = await Promise.resolve(metricOf(POLITENESS).compute(session as never, ctx(session, 'Session') as never)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('JudgeReplyError');
    expect(error?.message).toBe('sdk:Politeness: the judge reply has no "Score: N" line with N in 1–5; reply ends: "I would rather not say."');
    expect(usageOfError(error)).toMatchObject({ model: 'gpt-4o-mini', totalTokens: 450 });
  });

  it('fails naming the input an element lacks, without calling the judge', async () => {
    server.requests.length = 0;
    const session = twoAgentSession();
    const writer = { ...session.agentCalls[1]!, finalResponse: undefined, output: undefined };
    const bare = { ...session, agentCalls: [session.agentCalls[0]!, writer], llmCalls: session.llmCalls.filter((c) => c.agentCallId !== 'a2') };
    await expect(metricOf(POLITENESS).compute(writer as never, ctx(bare, 'AgentCall') as never)).rejects.toThrow(
      'sdk:Politeness: agent call writer (a2) has no final response (or assistant message) to judge (input final_response)',
    );
    await expect(metricOf({ ...POLITENESS, inputs: ['tool_results'] }).compute(writer as never, ctx(bare, 'AgentCall') as never)).rejects.toThrow(
      'sdk:Politeness: agent call writer (a2) has no tool results (no tool call in scope returned one) to judge (input tool_results)',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('takes model and threshold from the metric options over the entry, and names itself when no judge is configured', async () => {
    server.requests.length = 0;
    server.setScript([{ text: 'Curt.\nScore: 2', usage }]);
    const session = twoAgentSession();
    const result = await valueOf(metricOf(POLITENESS, { MCE_JUDGE_LOGPROBS: 'false' }), session, session, 'Session', { model: 'gpt-4o', threshold: 0.2 });
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-4o']);
    expect([result.value, result.details?.threshold, result.details?.success]).toEqual([0.25, 0.2, true]);
    const unconfigured = defineSdkMetrics([POLITENESS], () => new Judge(judgeConfigFromEnv({}), { pricing }))[0]!;
    await expect(unconfigured.compute(session as never, ctx(session, 'Session') as never)).rejects.toThrow(/^sdk:Politeness: no LLM judge configured/);
  });

  it('keys its cache on the provider, the model and the exact prompt', () => {
    const session = twoAgentSession();
    const metric = metricOf(POLITENESS);
    const key = metric.cacheKey!(session as never, ctx(session, 'Session') as never)!;
    expect(key).toMatch(/^sdk\|Politeness\|v1\|gpt-4o-mini\|opts:[0-9a-f]{16}\|in:[0-9a-f]{64}$/);
    const other = metricOf({ ...POLITENESS, criteria: 'Is it rude?' }).cacheKey!(session as never, ctx(session, 'Session') as never);
    expect(other).not.toBe(key);
    expect(metricOf({ ...POLITENESS, model: 'gpt-4o' }).cacheKey!(session as never, ctx(session, 'Session') as never)).toContain('|gpt-4o|');
  });
});
