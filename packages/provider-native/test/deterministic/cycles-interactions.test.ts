import { describe, expect, it } from 'vitest';
import type { AgentCall } from '@mce/core';
import {
  AgentToAgentInteractions,
  AgentToToolInteractions,
  CyclesCount,
  WorkflowEfficiency,
  countCycles,
  workflowEfficiency,
} from '../../src/metrics/deterministic/index.js';
import { SessionBuilder, contextFor, run, valueOf } from '../support/session-builder.js';
import { referenceSession } from '../support/reference-session.js';

/** A session whose agent calls run one after another with the given names. */
function agentsInOrder(names: string[]) {
  const b = new SessionBuilder();
  names.forEach((name, i) => b.agent(name, { start: i * 10, end: i * 10 + 5 }));
  return b.session;
}

describe('countCycles', () => {
  it.each<[string[], number]>([
    [['A', 'B', 'A', 'B'], 1],
    [['A', 'A'], 0],
    [[], 0],
    [['A'], 0],
    [['A', 'A', 'A', 'A'], 1],
    [['A', 'B', 'A', 'B', 'A'], 1],
    [['A', 'B', 'A', 'B', 'A', 'B'], 2],
    [['A', 'B', 'C', 'A', 'B', 'C'], 1],
    [['X', 'A', 'B', 'A', 'B', 'Y'], 1],
    [['A', 'B', 'B', 'A', 'B', 'B', 'A', 'B', 'B'], 2],
    [['A', 'B', 'C', 'D'], 0],
  ])('%j → %i', (seq, expected) => {
    expect(countCycles(seq)).toBe(expected);
  });
});

describe('CyclesCount', () => {
  it('runs over agent and tool names by start time in the session', async () => {
    // [A, search, B, search, A, calc]: no block repeats
    const s = referenceSession();
    const r = await valueOf(CyclesCount, 'Session', s, s);
    expect(r.value).toBe(0);
    expect(r.reasoning).toBe('0 repeated block(s) in a sequence of 6 agent/tool call(s).');
  });

  it('orders by start time, not by list order', async () => {
    const b = new SessionBuilder();
    b.tool('search', { start: 30, end: 31 });
    b.agent('A', { start: 0, end: 1 });
    b.tool('search', { start: 10, end: 11 });
    b.agent('A', { start: 20, end: 21 });
    // by start: [A, search, A, search] → 1
    expect((await valueOf(CyclesCount, 'Session', b.session, b.session)).value).toBe(1);
  });

  it('compares names: an agent and a tool of the same name are the same step', async () => {
    const b = new SessionBuilder();
    b.agent('x', { start: 0, end: 1 });
    b.tool('x', { start: 1, end: 2 });
    b.tool('x', { start: 2, end: 3 });
    b.agent('x', { start: 3, end: 4 });
    // [x, x, x, x]: seq[0:2] = seq[2:4] → 1
    expect((await valueOf(CyclesCount, 'Session', b.session, b.session)).value).toBe(1);
    const c = new SessionBuilder();
    c.agent('x', { start: 0, end: 1 });
    c.tool('y', { start: 1, end: 2 });
    c.tool('x', { start: 2, end: 3 });
    c.agent('y', { start: 3, end: 4 });
    // [x, y, x, y] across kinds → 1
    expect((await valueOf(CyclesCount, 'Session', c.session, c.session)).value).toBe(1);
  });

  it('at an AgentCall covers its own tool calls and directly nested agent calls', async () => {
    const b = new SessionBuilder();
    const outer = b.agent('Planner', { start: 0, end: 100 });
    b.tool('search', { start: 1, end: 2, agent: outer.id });
    b.tool('read', { start: 3, end: 4, agent: outer.id });
    b.tool('search', { start: 5, end: 6, agent: outer.id });
    b.tool('read', { start: 7, end: 8, agent: outer.id });
    const inner = b.agent('Coder', { start: 10, end: 40, agent: outer.id });
    b.tool('edit', { start: 11, end: 12, agent: inner.id });
    b.tool('edit', { start: 13, end: 14, agent: inner.id });
    // outer: [search, read, search, read, Coder] → 1; inner: [edit, edit] → 0
    expect((await valueOf(CyclesCount, 'AgentCall', outer, b.session)).value).toBe(1);
    expect((await valueOf(CyclesCount, 'AgentCall', inner, b.session)).value).toBe(0);
    // session: [Planner, search, read, search, read, Coder, edit, edit] → at i=1 [search, read] repeats → 1
    expect((await valueOf(CyclesCount, 'Session', b.session, b.session)).value).toBe(1);
  });
});

describe('AgentToAgentInteractions', () => {
  it('counts transitions between consecutive different agents, per "A -> B"', async () => {
    const s = referenceSession();
    const r = await valueOf(AgentToAgentInteractions, 'Session', s, s);
    expect(r.value).toBe(2);
    expect(r.details).toEqual({ transitions: { 'A -> B': 1, 'B -> A': 1 } });
  });

  it('does not count a repeated agent as a transition', async () => {
    const s = agentsInOrder(['A', 'A', 'B', 'B', 'A', 'B']);
    const r = await valueOf(AgentToAgentInteractions, 'Session', s, s);
    expect(r.value).toBe(3);
    expect(r.details).toEqual({ transitions: { 'A -> B': 2, 'B -> A': 1 } });
    expect(r.reasoning).toBe('3 transition(s) between agents, 2 distinct.');
  });

  it('includes nested agent calls in start-time order', async () => {
    const b = new SessionBuilder();
    const o = b.agent('Orchestrator', { start: 0, end: 100 });
    b.agent('Researcher', { start: 30, end: 40, agent: o.id });
    b.agent('Writer', { start: 10, end: 20, agent: o.id });
    const r = await valueOf(AgentToAgentInteractions, 'Session', b.session, b.session);
    expect(r.details).toEqual({ transitions: { 'Orchestrator -> Writer': 1, 'Writer -> Researcher': 1 } });
  });

  it('is 0 without agents', async () => {
    const s = new SessionBuilder().build();
    expect((await valueOf(AgentToAgentInteractions, 'Session', s, s)).value).toBe(0);
  });

  it('is defined at the Session level only', () => {
    const s = referenceSession();
    expect(() =>
      AgentToAgentInteractions.compute(s.agentCalls[0] as AgentCall, contextFor(s, 'AgentCall')),
    ).toThrow(/not defined at the AgentCall level/);
  });
});

describe('AgentToToolInteractions', () => {
  it('counts tool calls made by agents, per "(agent) -> (tool)"', async () => {
    const s = referenceSession();
    const r = await valueOf(AgentToToolInteractions, 'Session', s, s);
    expect(r.value).toBe(2);
    expect(r.details).toEqual({ interactions: { '(A) -> (search)': 1, '(B) -> (search)': 1 } });
    expect(r.reasoning).toBe('2 tool call(s) made by agents, 2 distinct agent -> tool pair(s); 1 tool call(s) outside any agent not counted.');
  });

  it('adds up repeated pairs', async () => {
    const b = new SessionBuilder();
    const a = b.agent('A', { start: 0, end: 10 });
    b.tool('calc', { start: 1, end: 2, agent: a.id });
    b.tool('calc', { start: 3, end: 4, agent: a.id });
    b.tool('web', { start: 5, end: 6, agent: a.id });
    const r = await valueOf(AgentToToolInteractions, 'Session', b.session, b.session);
    expect(r.value).toBe(3);
    expect(r.details).toEqual({ interactions: { '(A) -> (calc)': 2, '(A) -> (web)': 1 } });
  });

  it('lists pairs in the order they first occur; names holding " -> " stay apart', async () => {
    const b = new SessionBuilder();
    const x = b.agent('X', { start: 0, end: 10 });
    const ab = b.agent('a -> b', { start: 10, end: 20 });
    const a = b.agent('a', { start: 20, end: 30 });
    b.tool('web', { start: 1, end: 2, agent: x.id });
    b.tool('c', { start: 11, end: 12, agent: ab.id });
    b.tool('calc', { start: 13, end: 14, agent: x.id });
    b.tool('b -> c', { start: 21, end: 22, agent: a.id });
    const r = await valueOf(AgentToToolInteractions, 'Session', b.session, b.session);
    expect(r.value).toBe(4);
    expect(Object.entries(r.details?.interactions as object)).toEqual([
      ['(X) -> (web)', 1],
      ['(a -> b) -> (c)', 1],
      ['(X) -> (calc)', 1],
      ['(a) -> (b -> c)', 1],
    ]);
    expect(r.reasoning).toBe('4 tool call(s) made by agents, 4 distinct agent -> tool pair(s).');
  });
});

describe('WorkflowEfficiency', () => {
  it('follows 1 if u ≤ 2 else max(0, 1 − 0.2·(u − 2))', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map(workflowEfficiency)).toEqual([1, 1, 0.8, 0.6, 0.4, 0.2, 0, 0, 0]);
  });

  it('is 1 with two unique transitions (A -> B, B -> A, repeated)', async () => {
    const s = agentsInOrder(['A', 'B', 'A', 'B', 'A']);
    const r = await valueOf(WorkflowEfficiency, 'Session', s, s);
    expect(r.value).toBe(1);
    expect(r.details).toEqual({ uniqueTransitions: 2, transitions: ['A -> B', 'B -> A'] });
  });

  it('is 0.4 with five unique transitions', async () => {
    const s = agentsInOrder(['A', 'B', 'C', 'D', 'E', 'F']);
    const r = await valueOf(WorkflowEfficiency, 'Session', s, s);
    expect(r.value).toBe(0.4);
    expect(r.reasoning).toBe('5 unique agent transition(s): efficiency 0.4.');
  });

  it('is skipped, with the reason, when there is no transition', async () => {
    for (const s of [new SessionBuilder().build(), agentsInOrder(['A']), agentsInOrder(['A', 'A'])]) {
      expect(await run(WorkflowEfficiency, 'Session', s, s)).toEqual({ skipped: 'no transition between agents in this session' });
    }
  });
});
