import { fmt, nativeMetric, type NativeMetric } from './define.js';
import { statsOf } from './container-stats.js';

export { isErrored } from './container-stats.js';

function errorRateMetric(name: string, kind: 'llm' | 'tool', what: string): NativeMetric {
  return nativeMetric(
    name,
    {
      levels: ['Session', 'MASCall', 'AgentCall'],
      nature: 'deterministic',
      unit: '%',
      valueRange: '0-100',
      description:
        `Share of ${what} that failed (status error or an error recorded), 100 × errored / total; 0 when there are ` +
        `no ${what}. Calls counted as for ${kind === 'llm' ? 'LLMCallCount' : 'ToolCallCount'}.`,
      requirements: [`${kind === 'llm' ? 'llmCalls' : 'toolCalls'}.status`],
    },
    (element, ctx) => {
      const stats = statsOf(ctx.level, element, ctx.session);
      const total = kind === 'llm' ? stats.llmCalls : stats.toolCalls;
      const errored = kind === 'llm' ? stats.llmErrors : stats.toolErrors;
      const value = total === 0 ? 0 : (100 * errored) / total;
      return {
        value,
        reasoning:
          total === 0
            ? `No ${what} in this ${ctx.level}: error rate 0%.`
            : `${errored} of ${total} ${what} failed: ${fmt(value)}%.`,
        details: { errored, total },
      };
    },
  );
}

export const ToolErrorRate = errorRateMetric('ToolErrorRate', 'tool', 'tool calls');
export const LLMErrorRate = errorRateMetric('LLMErrorRate', 'llm', 'LLM calls');
