import type { LLMCall } from '@mce/core';
import { nativeMetric, type NativeMetric } from './define.js';
import { statsOf, type SummedTokenField } from './container-stats.js';
import { tokenCount } from './token-counts.js';

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
        'records a count the span does not carry (or cannot be read) as 0, with a warning for an unreadable one.',
      requirements: [`llmCalls.usage.${field}`],
    },
    (element, ctx) => {
      if (ctx.level === 'LLMCall') {
        return { value: tokenCount(element as LLMCall, field), reasoning: perCall };
      }
      const stats = statsOf(ctx.level, element, ctx.session);
      const invalid = stats.tokenErrors?.[field];
      if (invalid) throw invalid;
      const value = stats.tokens[field];
      return { value, reasoning: `${what} summed over ${stats.llmCalls} LLM call(s): ${value}.` };
    },
  );
}

export const PromptTokens = tokenMetric('PromptTokens', 'inputTokens', 'Prompt tokens (input, cached included)');
export const CompletionTokens = tokenMetric('CompletionTokens', 'outputTokens', 'Completion tokens (output)');
export const TotalTokens = tokenMetric('TotalTokens', 'totalTokens', 'Total tokens (as reported, else input + output)');
