import type { Session } from '@mce/core';
import { skip } from '@mce/core';
import { fmt, nativeMetric } from './define.js';
import { agentIndex } from './session-index.js';
import { perSession } from './session-cache.js';

const AGENT_SEQUENCE =
  'The agent sequence is every agent call of the session (nested ones included) ordered by start time, ties kept ' +
  'in the session\'s order; a transition is a pair of consecutive entries with different agent names.';

export interface AgentTransitions {
  /** Number of transitions (consecutive different agents). */
  total: number;
  /** Count per "A -> B", in order of first occurrence. */
  counts: Map<string, number>;
}


/** Transitions between consecutive different agents of the session's agent sequence (computed once per session). */
export function agentTransitions(session: Session): AgentTransitions {
  return perSession(session, 'agentTransitions', buildTransitions);
}

function buildTransitions(session: Session): AgentTransitions {
  const counts = new Map<string, number>();
  let total = 0;
  const sequence = agentIndex(session).agentSequence;
  for (let i = 1; i < sequence.length; i++) {
    const from = sequence[i - 1]!.agentName;
    const to = sequence[i]!.agentName;
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    total += 1;
  }
  return { total, counts };
}

export const AgentToAgentInteractions = nativeMetric(
  'AgentToAgentInteractions',
  {
    levels: ['Session'],
    nature: 'deterministic',
    unit: 'count',
    valueRange: 'non-negative integer',
    description: `Number of transitions between consecutive different agents. ${AGENT_SEQUENCE} Details: count per "A -> B".`,
    requirements: ['agentCalls.agentName', 'agentCalls.startTime'],
  },
  (_element, ctx) => {
    const { total, counts } = agentTransitions(ctx.session);
    return {
      value: total,
      reasoning: `${total} transition(s) between agents, ${counts.size} distinct.`,
      details: { transitions: Object.fromEntries(counts) },
    };
  },
);

export const AgentToToolInteractions = nativeMetric(
  'AgentToToolInteractions',
  {
    levels: ['Session'],
    nature: 'deterministic',
    unit: 'count',
    valueRange: 'non-negative integer',
    description:
      'Number of tool calls made by agents: tool calls attributed to an agent call (agentCallId), counted under ' +
      'the name of that nearest enclosing agent. Details: count per "(agent) -> (tool)".',
    requirements: ['toolCalls.agentCallId', 'toolCalls.toolName', 'agentCalls.agentName'],
  },
  (_element, ctx) => {
    const index = agentIndex(ctx.session);
    // Counted per agent, then per tool: no "(agent) -> (tool)" string per call, only one per distinct pair (in the
    // order of first occurrence, the order of the details). The parentheses keep an agent "a -> b" with tool "c"
    // apart from agent "a" with tool "b -> c".
    const byAgent = new Map<string, Map<string, { count: number }>>();
    const pairs: Array<[string, { count: number }]> = [];
    let total = 0;
    const toolCalls = ctx.session.toolCalls;
    for (let i = 0; i < toolCalls.length; i++) {
      const call = toolCalls[i]!;
      if (call.agentCallId === undefined) continue;
      const agent = index.agentById.get(call.agentCallId)?.agentName ?? call.agentCallId;
      let byTool = byAgent.get(agent);
      if (!byTool) byAgent.set(agent, (byTool = new Map()));
      let pair = byTool.get(call.toolName);
      if (!pair) {
        byTool.set(call.toolName, (pair = { count: 0 }));
        pairs.push([`(${agent}) -> (${call.toolName})`, pair]);
      }
      pair.count += 1;
      total += 1;
    }
    const counts = new Map<string, number>();
    for (const [key, pair] of pairs) counts.set(key, (counts.get(key) ?? 0) + pair.count);
    const unattributed = toolCalls.length - total;
    return {
      value: total,
      reasoning:
        `${total} tool call(s) made by agents, ${counts.size} distinct agent -> tool pair(s)` +
        (unattributed > 0 ? `; ${unattributed} tool call(s) outside any agent not counted.` : '.'),
      details: { interactions: Object.fromEntries(counts) },
    };
  },
);

/** 1 for at most 2 unique transitions, then 0.2 less per extra unique transition, never below 0. */
export function workflowEfficiency(uniqueTransitions: number): number {
  // (14 − 2u) / 10 = 1 − 0.2·(u − 2), written so the result is the double nearest the exact value (0.4, not 0.39999…).
  return uniqueTransitions <= 2 ? 1 : Math.max(0, (14 - 2 * uniqueTransitions) / 10);
}

export const WorkflowEfficiency = nativeMetric(
  'WorkflowEfficiency',
  {
    levels: ['Session'],
    nature: 'deterministic',
    unit: 'dimensionless',
    valueRange: '0.0-1.0',
    description:
      'With u the number of unique agent transitions ("A -> B" pairs): 1 if u ≤ 2, else max(0, 1 − 0.2·(u − 2)). ' +
      `${AGENT_SEQUENCE} Skipped when the session has no transition.`,
    requirements: ['agentCalls.agentName', 'agentCalls.startTime'],
  },
  (_element, ctx) => {
    const { counts } = agentTransitions(ctx.session);
    const u = counts.size;
    if (u === 0) return skip('no transition between agents in this session');
    const value = workflowEfficiency(u);
    return {
      value,
      reasoning: `${u} unique agent transition(s): efficiency ${fmt(value)}.`,
      details: { uniqueTransitions: u, transitions: [...counts.keys()] },
    };
  },
);
