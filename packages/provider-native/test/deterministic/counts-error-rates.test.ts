import { describe, expect, it } from 'vitest';
import type { AgentCall, MASCall } from '@mce/core';
import { AgentCallCount, LLMCallCount, LLMErrorRate, ToolCallCount, ToolErrorRate } from '../../src/metrics/deterministic/index.js';
import { SessionBuilder, valueOf } from '../support/session-builder.js';
import { referenceSession } from '../support/reference-session.js';

const s = referenceSession();
const agent = (id: string) => s.agentCalls.find((c) => c.id === id) as AgentCall;
const mas = s.masCalls[0] as MASCall;

describe('call counts', () => {
  it('count every call of the session', async () => {
    expect((await valueOf(LLMCallCount, 'Session', s, s)).value).toBe(3);
    expect((await valueOf(ToolCallCount, 'Session', s, s)).value).toBe(3);
    expect((await valueOf(AgentCallCount, 'Session', s, s)).value).toBe(3);
  });

  it('count the calls of a MASCall by masCallId', async () => {
    expect((await valueOf(ToolCallCount, 'MASCall', mas, s)).value).toBe(3);
    const b = new SessionBuilder();
    const m1 = b.mas({ start: 0, end: 10 });
    const m2 = b.mas({ start: 10, end: 20 });
    b.llm({ start: 1, end: 2, mas: m1.id });
    b.llm({ start: 11, end: 12, mas: m2.id });
    b.llm({ start: 13, end: 14, mas: m2.id });
    expect((await valueOf(LLMCallCount, 'MASCall', m1, b.session)).value).toBe(1);
    const r = await valueOf(LLMCallCount, 'MASCall', m2, b.session);
    expect(r.value).toBe(2);
    expect(r.reasoning).toBe('2 LLM calls in this MASCall.');
  });

  it('count the calls attributed to an AgentCall (its nearest enclosing agent call), not those of nested agents', async () => {
    expect((await valueOf(ToolCallCount, 'AgentCall', agent('a1'), s)).value).toBe(1);
    const b = new SessionBuilder();
    const outer = b.agent('Orchestrator', { start: 0, end: 100 });
    const inner = b.agent('Worker', { start: 10, end: 50, agent: outer.id });
    b.tool('t', { start: 5, end: 6, agent: outer.id });
    b.tool('t', { start: 20, end: 21, agent: inner.id });
    b.tool('t', { start: 22, end: 23, agent: inner.id });
    b.llm({ start: 30, end: 40, agent: inner.id });
    expect((await valueOf(ToolCallCount, 'AgentCall', outer, b.session)).value).toBe(1);
    expect((await valueOf(ToolCallCount, 'AgentCall', inner, b.session)).value).toBe(2);
    expect((await valueOf(AgentCallCount, 'AgentCall', outer, b.session)).value).toBe(1);
    expect((await valueOf(AgentCallCount, 'AgentCall', inner, b.session)).value).toBe(0);
    expect((await valueOf(LLMCallCount, 'AgentCall', outer, b.session)).value).toBe(0);
  });
});

describe('error rates', () => {
  it('are 100 × errored / calls', async () => {
    expect((await valueOf(ToolErrorRate, 'Session', s, s)).value).toBeCloseTo(100 / 3, 12);
    expect((await valueOf(LLMErrorRate, 'MASCall', mas, s)).value).toBeCloseTo(100 / 3, 12);
    const r = await valueOf(ToolErrorRate, 'AgentCall', agent('a1'), s);
    expect(r.value).toBe(100);
    expect(r.details).toEqual({ errored: 1, total: 1 });
    expect((await valueOf(ToolErrorRate, 'AgentCall', agent('b1'), s)).value).toBe(0);
    expect((await valueOf(LLMErrorRate, 'AgentCall', agent('a2'), s)).value).toBe(100);
  });

  it('are 0 with no calls', async () => {
    const r = await valueOf(ToolErrorRate, 'AgentCall', agent('a2'), s);
    expect(r.value).toBe(0);
    expect(r.reasoning).toBe('No tool calls in this AgentCall: error rate 0%.');
    const empty = new SessionBuilder().build();
    expect((await valueOf(LLMErrorRate, 'Session', empty, empty)).value).toBe(0);
  });

  it('are 100 when every call failed, counting a recorded error even without status error', async () => {
    const b = new SessionBuilder();
    b.tool('a', { start: 0, end: 1, status: 'error' });
    const t = b.tool('b', { start: 1, end: 2, status: 'unset' });
    t.error = { type: 'TimeoutError', message: 'timed out' };
    const r = await valueOf(ToolErrorRate, 'Session', b.session, b.session);
    expect(r.value).toBe(100);
    expect(r.reasoning).toBe('2 of 2 tool calls failed: 100%.');
  });

  it('give 25% for one failure in four', async () => {
    const b = new SessionBuilder();
    for (let i = 0; i < 4; i++) b.llm({ start: i, end: i + 1, status: i === 2 ? 'error' : 'ok' });
    expect((await valueOf(LLMErrorRate, 'Session', b.session, b.session)).value).toBe(25);
  });
});
