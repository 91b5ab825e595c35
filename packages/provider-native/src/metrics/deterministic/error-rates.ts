import type { Call } from '@mce/core';
import { fmt, nativeMetric, type NativeMetric } from './define.js';
import { callsWithin } from './session-index.js';

/** A call failed when its status is `error` or it carries an error. */
export function isErrored(call: Call): boolean {
  return call.status === 'error' || call.error !== undefined;
}

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
      const calls = callsWithin(kind, ctx.level, element, ctx.session);
      let errored = 0;
      for (const call of calls) if (isErrored(call)) errored += 1;
      const value = calls.length === 0 ? 0 : (100 * errored) / calls.length;
      return {
        value,
        reasoning:
          calls.length === 0
            ? `No ${what} in this ${ctx.level}: error rate 0%.`
            : `${errored} of ${calls.length} ${what} failed: ${fmt(value)}%.`,
        details: { errored, total: calls.length },
      };
    },
  );
}

export const ToolErrorRate = errorRateMetric('ToolErrorRate', 'tool', 'tool calls');
export const LLMErrorRate = errorRateMetric('LLMErrorRate', 'llm', 'LLM calls');
