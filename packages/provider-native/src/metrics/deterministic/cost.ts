import type { LLMCall } from '@mce/core';
import { costBreakdown, type CostBreakdown } from '../../prices/cost.js';
import { defaultPriceTable } from '../../prices/committed-prices.js';
import type { PriceLookup, PriceTable } from '../../prices/price-table.js';
import { fmt, nativeMetric, type NativeMetric } from './define.js';
import { callsWithin } from './session-index.js';
import { tokenCount } from './token-counts.js';

export interface LLMCallCost {
  lookup: PriceLookup;
  breakdown: CostBreakdown;
}

/** Model label of a call in breakdowns: response model, else request model. */
function modelLabel(call: LLMCall): string {
  return call.responseModel?.trim() || call.requestModel?.trim() || '(unknown model)';
}

/** Cost of each call, memoised per call object and table generation (AgentCall/MASCall/Session sums reuse it). */
const memo = new WeakMap<LLMCall, { table: PriceTable; generation: number; cost: LLMCallCost }>();

export function llmCallCost(call: LLMCall, table: PriceTable): LLMCallCost {
  const hit = memo.get(call);
  if (hit && hit.table === table && hit.generation === table.generation) return hit.cost;
  const lookup = table.lookup({ responseModel: call.responseModel, requestModel: call.requestModel, provider: call.provider });
  const breakdown = costBreakdown(
    {
      inputTokens: tokenCount(call, 'inputTokens'),
      outputTokens: tokenCount(call, 'outputTokens'),
      cacheReadTokens: tokenCount(call, 'cacheReadTokens'),
      cacheWriteTokens: tokenCount(call, 'cacheWriteTokens'),
    },
    lookup.prices,
  );
  const cost = { lookup, breakdown };
  memo.set(call, { table, generation: table.generation, cost });
  return cost;
}

function fallbackNote(models: readonly string[]): string {
  return `no price for ${models.map((m) => `'${m}'`).join(', ')}: priced like gpt-4o`;
}

interface ModelTotals {
  calls: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  priceKey: string;
  fallback: boolean;
}

const DESCRIPTION =
  'Estimated USD cost of LLM calls from the LiteLLM price table: (input − cacheRead − cacheWrite)·input price + ' +
  'cacheRead·cache-read price + cacheWrite·cache-creation price + output·output price (the input price where a ' +
  'cache price is missing; input tokens include the cached ones). The price is looked up by response model, request ' +
  'model, provider/model, the name without a date suffix, the name without a provider prefix; a model with no price ' +
  'is priced like gpt-4o and the reasoning says so. AgentCall, MASCall and Session sum their LLM calls ' +
  '(AgentCall: calls whose nearest enclosing agent call it is), with a per-model breakdown in details.';

/** The Cost metric pricing with `table` (the package's shared table by default). */
export function createCostMetric(table: () => PriceTable = defaultPriceTable): NativeMetric {
  return nativeMetric(
    'Cost',
    {
      levels: ['Session', 'MASCall', 'AgentCall', 'LLMCall'],
      nature: 'deterministic',
      unit: 'USD',
      valueRange: 'non-negative number',
      description: DESCRIPTION,
      requirements: ['llmCalls.usage', 'llmCalls.responseModel | llmCalls.requestModel'],
    },
    (element, ctx) => {
      const prices = table();
      if (ctx.level === 'LLMCall') {
        const call = element as LLMCall;
        const { lookup, breakdown } = llmCallCost(call, prices);
        const model = lookup.model ?? '(unknown model)';
        const how = lookup.fallback ? fallbackNote([model]) : `priced as '${lookup.key}' (${lookup.matchedBy})`;
        return {
          value: breakdown.total,
          reasoning: `LLM call to '${model}' ${how}: ${fmt(breakdown.total)} USD.`,
          details: {
            model,
            priceKey: lookup.key,
            matchedBy: lookup.matchedBy,
            fallback: lookup.fallback,
            ...breakdown,
            ...(lookup.fallback ? { note: fallbackNote([model]) } : {}),
          },
        };
      }
      const calls = callsWithin('llm', ctx.level, element, ctx.session);
      const byModel = new Map<string, ModelTotals>();
      let value = 0;
      for (const call of calls) {
        const { lookup, breakdown } = llmCallCost(call, prices);
        const label = modelLabel(call);
        let totals = byModel.get(label);
        if (!totals) {
          totals = {
          calls: 0,
          cost: 0,
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          priceKey: lookup.key,
          fallback: lookup.fallback,
          };
          byModel.set(label, totals);
        }
        totals.calls += 1;
        totals.cost += breakdown.total;
        totals.inputTokens += call.usage.inputTokens;
        totals.outputTokens += call.usage.outputTokens;
        totals.cacheReadTokens += call.usage.cacheReadTokens;
        totals.cacheWriteTokens += call.usage.cacheWriteTokens;
        value += breakdown.total;
      }
      const fallbackModels = [...byModel].filter(([, t]) => t.fallback).map(([m]) => m);
      const note = fallbackModels.length > 0 ? fallbackNote(fallbackModels) : undefined;
      return {
        value,
        reasoning:
          `${fmt(value)} USD over ${calls.length} LLM call(s) of ${byModel.size} model(s)` +
          (note ? `; ${note}.` : '.'),
        details: { models: Object.fromEntries(byModel), ...(note ? { fallbackModels, note } : {}) },
      };
    },
  );
}

export const Cost = createCostMetric();
