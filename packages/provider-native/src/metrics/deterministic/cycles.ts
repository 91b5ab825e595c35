import type { AgentCall, Session, ToolCall } from '@mce/core';
import { nativeMetric } from './define.js';
import { mergeByStartTime } from './session-index.js';
import { perSession } from './session-cache.js';
import { countCycles } from './cycle-detection.js';

export { countCycles, countCyclesFast, countCyclesNaive } from './cycle-detection.js';

type Step = AgentCall | ToolCall;

interface SessionSequences {
  /** Every agent and tool call of the session by start time, as interned step names. */
  session: number[];
  /** Per agent call id: its direct agent calls and tool calls, in the same order. */
  byAgent: Map<string, number[]>;
}


/**
 * One sort for the whole session: each agent call's own sequence is the session order restricted to its calls (the
 * sort is stable, so this equals sorting the subset). Names are interned to numbers so comparisons are cheap.
 */
function sessionSequences(session: Session): SessionSequences {
  return perSession(session, 'stepSequences', buildSequences);
}

function buildSequences(session: Session): SessionSequences {
  // One name space, as the formula reads names: an agent called `search` and the tool `search` are the same step.
  const ids = new Map<string, number>();
  const sorted: Step[] = mergeByStartTime(session.agentCalls, session.toolCalls);
  const seq: number[] = new Array<number>(sorted.length);
  const byAgent = new Map<string, number[]>();
  for (let i = 0; i < sorted.length; i++) {
    const step = sorted[i]!;
    const name = step.kind === 'AgentCall' ? step.agentName : step.toolName;
    let id = ids.get(name);
    if (id === undefined) {
      id = ids.size;
      ids.set(name, id);
    }
    seq[i] = id;
    if (step.agentCallId !== undefined) {
      const own = byAgent.get(step.agentCallId);
      if (own) own.push(id);
      else byAgent.set(step.agentCallId, [id]);
    }
  }
  return { session: seq, byAgent };
}

const NO_STEPS: readonly number[] = Object.freeze([]);

export const CyclesCount = nativeMetric(
  'CyclesCount',
  {
    levels: ['Session', 'AgentCall'],
    nature: 'deterministic',
    unit: 'count',
    valueRange: 'non-negative integer',
    description:
      'Number of repeated blocks in the sequence of agent-call and tool-call names ordered by start time ' +
      '(compared as names: an agent and a tool of the same name are the same step): i = 0; while i < n: for k = 2 … ⌊(n − i)/2⌋, if seq[i:i+k] = ' +
      'seq[i+k:i+2k] then count += 1, i += k, stop; if no k matched, i += 1. [A,B,A,B] → 1, [A,A] → 0. ' +
      'Session: every agent call (nested ones included) and tool call; AgentCall: the agent calls nested directly ' +
      'in it and the tool calls whose nearest enclosing agent call it is.',
    requirements: ['agentCalls.agentName', 'toolCalls.toolName', 'startTime'],
  },
  (element, ctx) => {
    const sequences = sessionSequences(ctx.session);
    const seq = ctx.level === 'Session' ? sequences.session : (sequences.byAgent.get(element.id) ?? NO_STEPS);
    const value = countCycles(seq);
    return {
      value,
      reasoning: `${value} repeated block(s) in a sequence of ${seq.length} agent/tool call(s).`,
    };
  },
);
