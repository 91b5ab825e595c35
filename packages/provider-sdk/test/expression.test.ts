/** The expression language: parsed with columns, checked against the levels' fields, evaluated over real elements. */
import { describe, expect, it } from 'vitest';
import { isSkip, type Element, type MetricContext, type OntologyLevel, type Session } from '@mce/core';
import { ExpressionError, checkExpression, defineSdkMetrics, parseExpression } from '@mce/provider-sdk';
import { twoAgentSession } from './sessions.js';

const ctx = (session: Session, level: OntologyLevel, options: Record<string, unknown> = {}): MetricContext => ({
  session, level, options, results: { get: () => undefined, all: () => [] },
});

function metric(expression: string, levels: OntologyLevel[] = ['Session', 'AgentCall']) {
  const [m] = defineSdkMetrics([{ name: 'M', kind: 'deterministic', levels, expression }]);
  return m!;
}

async function valueAt(expression: string, level: OntologyLevel = 'Session', element?: Element, session = twoAgentSession()): Promise<number> {
  const outcome = await metric(expression, [level]).compute((element ?? session) as never, ctx(session, level) as never);
  if (isSkip(outcome)) throw new Error(outcome.skipped);
  return outcome.value;
}

async function failureAt(expression: string, level: OntologyLevel = 'Session', element?: Element, session = twoAgentSession()): Promise<string> {
  try {
    await metric(expression, [level]).compute((element ?? session) as never, ctx(session, level) as never);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

function problemOf(source: string, levels: OntologyLevel[] = ['Session']): string {
  try {
    checkExpression(parseExpression(source), levels);
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
  throw new Error('expected an ExpressionError');
}

describe('evaluation', () => {
  it('computes counts, shares, sums, means and extremes over the children of a session', async () => {
    expect(await valueAt('count(ToolCall) / count(LLMCall)')).toBeCloseTo(2 / 3, 12);
    expect(await valueAt('share(LLMCall, duration > 10)')).toBeCloseTo(2 / 3, 12);
    expect(await valueAt('sum(LLMCall.total_tokens)')).toBe(1000);
    expect(await valueAt('mean(LLMCall.duration)')).toBeCloseTo((2 + 12 + 20) / 3, 12);
    expect(await valueAt('max(LLMCall.total_tokens) - min(LLMCall.total_tokens)')).toBe(500);
    expect(await valueAt('sum(LLMCall.total_tokens, duration >= 12 and not (model != "gpt-4o"))')).toBe(900);
    expect(await valueAt('count(ToolCall, is_error or tool_name == "search")')).toBe(2);
    expect(await valueAt('share(ToolCall, is_error)')).toBe(0.5);
    expect(await valueAt('(1 + 2) * 3 % 4 - -1')).toBe(2);
    expect(await valueAt('duration')).toBe(60);
    // A condition may aggregate the child's own children: agents that called more than one tool.
    expect(await valueAt('share(AgentCall, count(ToolCall) > 1)')).toBe(0.5);
  });

  it('counts a condition 1 or 0', async () => {
    expect(await valueAt('count(ToolCall) > 1')).toBe(1);
    expect(await valueAt('count(ToolCall) > 2 or false')).toBe(0);
  });

  it('reads an agent call\'s own children only', async () => {
    const session = twoAgentSession();
    const [planner, writer] = session.agentCalls;
    expect(await valueAt('count(ToolCall) / count(LLMCall)', 'AgentCall', planner, session)).toBe(1);
    expect(await valueAt('sum(LLMCall.total_tokens)', 'AgentCall', writer, session)).toBe(600);
    expect(await valueAt('count(ToolCall)', 'AgentCall', writer, session)).toBe(0);
    expect(await valueAt('agent_name == "writer"', 'AgentCall', writer, session)).toBe(1);
  });

  it('finds children through parent spans at any depth, and through the agent a call names', async () => {
    const base = twoAgentSession();
    // search was called by the planner's first LLM call; fetch names its agent only (its parent span is not in the session).
    const session = { ...base, toolCalls: [{ ...base.toolCalls[0]!, parentId: 'l1' }, { ...base.toolCalls[1]!, parentId: 'missing-span' }] };
    const [l1, l2] = session.llmCalls;
    expect(await valueAt('count(ToolCall)', 'LLMCall', l1, session)).toBe(1);
    expect(await valueAt('count(ToolCall)', 'LLMCall', l2, session)).toBe(0);
    expect(await valueAt('count(ToolCall)', 'AgentCall', session.agentCalls[0], session)).toBe(2);
  });

  it('fails on a division by zero, an aggregate over nothing and a field the trace did not record', async () => {
    const session = twoAgentSession();
    const writer = session.agentCalls[1];
    expect(await failureAt('count(LLMCall) / count(ToolCall)', 'AgentCall', writer, session)).toBe(
      'sdk:M: "count(LLMCall) / count(ToolCall)" at column 16: division by zero (the right side of / is 0)',
    );
    expect(await failureAt('share(ToolCall, is_error)', 'AgentCall', writer, session)).toBe(
      'sdk:M: "share(ToolCall, is_error)" at column 1: share() over no ToolCall: AgentCall a2 has none, the share is undefined',
    );
    expect(await failureAt('mean(LLMCall.duration, duration > 100)')).toContain('mean() over no LLMCall meeting the condition: session s1 has none');
    expect(await failureAt('sum(LLMCall.total_tokens)', 'Session', undefined, twoAgentSession({ unreportedUsage: true }))).toBe(
      'sdk:M: "sum(LLMCall.total_tokens)" at column 5: LLMCall l2 has no recorded total_tokens',
    );
    // The share is never computed over nothing: `and` stops at its false left side.
    expect(await valueAt('count(ToolCall) > 0 and share(ToolCall, is_error) > 0.1', 'AgentCall', writer, session)).toBe(0);
  });

  it('reports the threshold it was given', async () => {
    const [m] = defineSdkMetrics([{ name: 'Calls', kind: 'deterministic', levels: ['Session'], expression: 'count(LLMCall)', threshold: 5 }]);
    const session = twoAgentSession();
    const outcome = await m!.compute(session as never, ctx(session, 'Session') as never);
    expect(outcome).toEqual({ value: 3, reasoning: 'count(LLMCall) = 3', details: { expression: 'count(LLMCall)', threshold: 5, success: false } });
  });
});

describe('parse and check errors name the column', () => {
  it.each([
    ['count(ToolCall', 'column 15: expected "," or ")" to close count(, found the end of the expression'],
    ['count(ToolCall) &&', 'column 17: unexpected character "&" (write and)'],
    ['1 +', 'column 4: expected a value, found the end of the expression'],
    ['', 'column 1: the expression is empty'],
    ['count(ToolCall) 2', 'column 17: expected an operator or the end, found "2"'],
    ['"open', 'column 1: the string opened here is not closed (missing ")'],
    ['1 < 2 < 3', 'column 7: comparisons do not chain: join them with and'],
    ['tool.name', 'column 5: "tool" is not a level (one of Session, MASCall, AgentCall, TaskCall, LLMCall, ToolCall): only a level has fields after "."'],
  ])('%j', (source, message) => {
    expect(problemOf(source)).toBe(message);
  });

  it.each([
    ['eval(1)', 'column 1: unknown function "eval" (functions: count, share, sum, mean, min, max)'],
    ['constructor', 'column 1: unknown field "constructor" (fields: duration, duration_ms, status, is_error, name, agent_name, tool_name, task_name, workflow_name, is_mcp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, reasoning_tokens, input_messages, output_messages) (read from the measured element (Session))'],
    ['total_tokens', 'column 1: total_tokens is not a field of Session (it is one of LLMCall) (read from the measured element (Session))'],
    ['sum(LLMCall.tool_name)', 'column 5: tool_name is not a field of LLMCall (it is one of ToolCall)'],
    ['sum(ToolCall.tool_name)', 'column 5: sum() needs a numeric field; ToolCall.tool_name is a string'],
    ['share(LLMCall)', 'column 1: share() takes 2 arguments, got 1'],
    ['share(LLMCall, duration)', 'column 16: the condition of share() must be a condition, not a number'],
    ['count(Session)', 'column 7: a Session is never the child of an element: name a call level'],
    ['LLMCall.duration', 'column 1: LLMCall.duration is a list of values: take its sum(), mean(), min() or max()'],
    ['count(LLMCall) and true', 'column 1: the left side of and must be a condition, not a number'],
    ['count(LLMCall) == "x"', 'column 19: == compares values of one type: the left side is a number, the right side a string'],
    ['"x"', 'column 1: the expression yields a string: a metric is a number (or a condition, counted 1 or 0)'],
  ])('%j', (source, message) => {
    expect(problemOf(source)).toBe(message);
  });
});
