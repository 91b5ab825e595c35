import { nativeMetric, type NativeMetric } from './define.js';
import { statsOf } from './container-stats.js';

const LEVELS = ['Session', 'MASCall', 'AgentCall'] as const;
const SCOPE =
  'in a Session: all of them; in a MASCall: those with its masCallId; in an AgentCall: those whose nearest ' +
  'enclosing agent call it is (calls of nested agent calls count at those agent calls)';

function countMetric(name: string, kind: 'llm' | 'tool' | 'agent', what: string): NativeMetric {
  return nativeMetric(
    name,
    {
      levels: LEVELS,
      nature: 'deterministic',
      unit: 'count',
      valueRange: 'non-negative integer',
      description: `Number of ${what} ${SCOPE}.`,
      requirements: [`${kind === 'llm' ? 'llmCalls' : kind === 'tool' ? 'toolCalls' : 'agentCalls'}`],
    },
    (element, ctx) => {
      const stats = statsOf(ctx.level, element, ctx.session);
      const value = kind === 'llm' ? stats.llmCalls : kind === 'tool' ? stats.toolCalls : stats.agentCalls;
      return { value, reasoning: `${value} ${what} in this ${ctx.level}.` };
    },
  );
}

export const LLMCallCount = countMetric('LLMCallCount', 'llm', 'LLM calls');
export const ToolCallCount = countMetric('ToolCallCount', 'tool', 'tool calls');
export const AgentCallCount = countMetric('AgentCallCount', 'agent', 'agent calls');
