import type { LLMCall } from '@mce/core';
import { nativeMetric, type NativeMetric } from './define.js';
import { statsOf, type SummedTokenField } from './container-stats.js';
import { skip } from '@mce/core';
import { tokenCount, USAGE_NOT_REPORTED, usageReported, withoutUsageNote } from './token-counts.js';

const LEVELS = ['Session', 'MASCall', 'AgentCall', 'LLMCall'] as const;

function tokenMetric(name: string, field: SummedTokenField, what: string): NativeMetric {
  // A fixed sentence at the LLMCall level (the bulk of the results; the value is in `result`).
  const perCall = `${what} reported by the LLM call.`;
  return nativeMetric(
    name,
    {
      levels: LEVELS,
      nature: 'deterministic',
      unit: 'tokens',
      valueRange: 'non-negative integer',
      description:
        `${what} of an LLM call (usage.${field}); for an AgentCall, MASCall or Session the sum over its LLM calls ` +
        '(AgentCall: the LLM calls whose nearest enclosing agent call it is; MASCall: those with its masCallId). ' +
        'A call whose count is NaN or negative makes the metric fail rather than sum a wrong value; trace ingestion ' +
        'records a count it cannot read as 0, with a warning. A call whose trace records no token count at all is ' +
        '"usage not reported": skipped, and left out of the sums, which say how many such calls they have (a ' +
        'container all of whose calls have none is skipped).',
      requirements: [`llmCalls.usage.${field}`],
    },
    (element, ctx) => {
      if (ctx.level === 'LLMCall') {
        const call = element as LLMCall;
        if (!usageReported(call)) return skip(USAGE_NOT_REPORTED);
        return { value: tokenCount(call, field), reasoning: perCall };
      }
      const stats = statsOf(ctx.level, element, ctx.session);
      const invalid = stats.tokenErrors?.[field];
      if (invalid) throw invalid;
      const missing = stats.callsWithoutUsage;
      if (missing > 0 && missing === stats.llmCalls) return skip(`usage not reported by any of its ${missing} LLM call(s)`);
      const value = stats.tokens[field];
      const counted = stats.llmCalls - missing;
      return {
        value,
        reasoning: `${what} summed over ${counted} LLM call(s): ${value}${withoutUsageNote(missing)}.`,
        ...(missing > 0 ? { details: { llmCalls: stats.llmCalls, callsWithoutUsage: missing } } : {}),
      };
    },
  );
}

export const PromptTokens = tokenMetric('PromptTokens', 'inputTokens', 'Prompt tokens (input, cached included)');
export const CompletionTokens = tokenMetric('CompletionTokens', 'outputTokens', 'Completion tokens (output)');
export const TotalTokens = tokenMetric('TotalTokens', 'totalTokens', 'Total tokens (as reported, else input + output)');
