import type { AgentCall, Session, ToolCall } from '@mce/core';
import { nativeMetric } from './define.js';
import { byStartTime, sessionIndex } from './session-index.js';

/**
 * Counts repeated blocks in a sequence: i = 0; while i < n: for k = 2 … ⌊(n − i)/2⌋, if seq[i:i+k] = seq[i+k:i+2k]
 * then count += 1, i += k and stop trying k; if no k matched, i += 1. ([A,B,A,B] → 1; [A,A] → 0: a block has at
 * least two elements.)
 */
export function countCycles<T>(seq: readonly T[]): number {
  const n = seq.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    let advanced = false;
    const maxK = Math.floor((n - i) / 2);
    for (let k = 2; k <= maxK; k++) {
      let equal = true;
      for (let j = 0; j < k; j++) {
        if (seq[i + j] !== seq[i + k + j]) {
          equal = false;
          break;
        }
      }
      if (equal) {
        count += 1;
        i += k;
        advanced = true;
        break;
      }
    }
    if (!advanced) i += 1;
  }
  return count;
}

type Step = AgentCall | ToolCall;

/** Agent and tool names live in separate namespaces: an agent called `search` is not the tool `search`. */
function stepName(step: Step): string {
  return step.kind === 'AgentCall' ? `agent:${step.agentName}` : `tool:${step.toolName}`;
}

/** The ordered step names (agent calls and tool calls by start time) of a set of calls. */
export function stepSequence(agents: readonly AgentCall[], tools: readonly ToolCall[]): string[] {
  return byStartTime<Step>([...agents, ...tools]).map(stepName);
}

const sessionSequences = new WeakMap<Session, string[]>();

function sessionSequence(session: Session): string[] {
  let seq = sessionSequences.get(session);
  if (!seq) {
    seq = stepSequence(session.agentCalls, session.toolCalls);
    sessionSequences.set(session, seq);
  }
  return seq;
}

export const CyclesCount = nativeMetric(
  'CyclesCount',
  {
    levels: ['Session', 'AgentCall'],
    nature: 'deterministic',
    unit: 'count',
    valueRange: 'non-negative integer',
    description:
      'Number of repeated blocks in the sequence of agent-call and tool-call names ordered by start time ' +
      '(agent names and tool names kept apart): i = 0; while i < n: for k = 2 … ⌊(n − i)/2⌋, if seq[i:i+k] = ' +
      'seq[i+k:i+2k] then count += 1, i += k, stop; if no k matched, i += 1. [A,B,A,B] → 1, [A,A] → 0. ' +
      'Session: every agent call (nested ones included) and tool call; AgentCall: the agent calls nested directly ' +
      'in it and the tool calls whose nearest enclosing agent call it is.',
    requirements: ['agentCalls.agentName', 'toolCalls.toolName', 'startTime'],
  },
  (element, ctx) => {
    let seq: string[];
    if (ctx.level === 'Session') seq = sessionSequence(ctx.session);
    else {
      const index = sessionIndex(ctx.session);
      seq = stepSequence(index.agentByAgent.get(element.id) ?? [], index.toolByAgent.get(element.id) ?? []);
    }
    const value = countCycles(seq);
    return {
      value,
      reasoning: `${value} repeated block(s) in a sequence of ${seq.length} agent/tool call(s).`,
    };
  },
);
