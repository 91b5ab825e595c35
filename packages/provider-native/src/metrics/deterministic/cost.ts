import type { LLMCall, Session } from '@mce/core';
import { costBreakdown, type CostBreakdown } from '../../prices/cost.js';
import { defaultPriceTable } from '../../prices/committed-prices.js';
import type { PriceLookup, PriceTable } from '../../prices/price-table.js';
import { fmt, nativeMetric, type NativeMetric } from './define.js';
import { sessionCache } from './session-cache.js';
import { tokenCount } from './token-counts.js';

export interface LLMCallCost {
  lookup: PriceLookup;
  breakdown: CostBreakdown;
}

/** Cost of one LLM call priced with `table`; throws on an invalid token count. */
export function llmCallCost(call: LLMCall, table: PriceTable): LLMCallCost {
  const lookup = table.lookupModel(call.responseModel, call.requestModel, call.provider);
  const breakdown = costBreakdown(
    {
      inputTokens: tokenCount(call, 'inputTokens'),
      outputTokens: tokenCount(call, 'outputTokens'),
      cacheReadTokens: tokenCount(call, 'cacheReadTokens'),
      cacheWriteTokens: tokenCount(call, 'cacheWriteTokens'),
    },
    lookup.prices,
  );
  return { lookup, breakdown };
}

interface ModelTotals {
  /** The calls' model label; the entry's key too, unless the label's calls were priced two ways (see addTo). */
  model: string;
  calls: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  priceKey: string;
  fallback: boolean;
}

/** The sum over the LLM calls of one container (AgentCall, MASCall, Session), or the first of its calls' errors. */
interface ContainerCost {
  value: number;
  calls: number;
  byModel: Map<string, ModelTotals>;
  error?: Error;
}

/**
 * What Cost reports for one LLM call, built once per call with the session's costs: the result's details object is
 * this one (not a copy per result), so a 50,000-call session keeps one details object per call and nothing else.
 */
interface PricedCall {
  lookup: PriceLookup;
  total: number;
  reasoning: string;
  details: Record<string, unknown>;
}

function pricedCall(call: LLMCall, table: PriceTable): PricedCall {
  const { lookup, breakdown } = llmCallCost(call, table);
  const text = lookupText(lookup);
  // Written out in the order of the details' keys: model, price key, match, fallback, the breakdown, the note.
  const details: Record<string, unknown> = {
    model: text.model,
    priceKey: lookup.key,
    matchedBy: lookup.matchedBy,
    fallback: lookup.fallback,
    uncachedInputCost: breakdown.uncachedInputCost,
    cacheReadCost: breakdown.cacheReadCost,
    cacheWriteCost: breakdown.cacheWriteCost,
    outputCost: breakdown.outputCost,
    total: breakdown.total,
  };
  if (text.note) details.note = text.note;
  return { lookup, total: breakdown.total, reasoning: text.reasoning, details };
}

/** Every cost of a session, computed in one pass the first time any Cost result of the session is asked for. */
interface SessionCosts {
  table: PriceTable;
  generation: number;
  perCall: Map<LLMCall, PricedCall | Error>;
  byAgent: Map<string, ContainerCost>;
  byMas: Map<string, ContainerCost>;
  session: ContainerCost;
}


/** Model label of a call in breakdowns: response model, else request model. */
function modelLabel(call: LLMCall): string {
  return call.responseModel?.trim() || call.requestModel?.trim() || '(unknown model)';
}

function emptyContainer(): ContainerCost {
  return { value: 0, calls: 0, byModel: new Map() };
}

function addTo(container: ContainerCost, call: LLMCall, cost: PricedCall | Error): void {
  container.calls += 1;
  if (cost instanceof Error) {
    container.error ??= cost;
    return;
  }
  const model = modelLabel(call);
  let label = model;
  let totals = container.byModel.get(label);
  // Calls of one model label priced by different table entries (one found under `provider/model`, another not
  // found at all, say) are kept apart: each entry's price key and fallback flag then hold for all its calls.
  if (totals && totals.priceKey !== cost.lookup.key) {
    label = `${model} (priced as ${cost.lookup.key})`;
    totals = container.byModel.get(label);
  }
  if (!totals) {
    totals = {
      model,
      calls: 0,
      cost: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      priceKey: cost.lookup.key,
      fallback: cost.lookup.fallback,
    };
    container.byModel.set(label, totals);
  }
  totals.calls += 1;
  totals.cost += cost.total;
  totals.inputTokens += call.usage.inputTokens;
  totals.outputTokens += call.usage.outputTokens;
  totals.cacheReadTokens += call.usage.cacheReadTokens;
  totals.cacheWriteTokens += call.usage.cacheWriteTokens;
  container.value += cost.total;
}

function containerOf(map: Map<string, ContainerCost>, id: string): ContainerCost {
  let container = map.get(id);
  if (!container) {
    container = emptyContainer();
    map.set(id, container);
  }
  return container;
}

function sessionCosts(session: Session, table: PriceTable): SessionCosts {
  const cache = sessionCache(session);
  const cached = cache.costs as SessionCosts | undefined;
  if (cached && cached.table === table && cached.generation === table.generation) return cached;
  const costs: SessionCosts = {
    table,
    generation: table.generation,
    perCall: new Map(),
    byAgent: new Map(),
    byMas: new Map(),
    session: emptyContainer(),
  };
  // Indexed loop: an unoptimised for-of (this runs once per session) allocates an iterator result per call.
  const calls = session.llmCalls;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    let cost: PricedCall | Error;
    try {
      cost = pricedCall(call, table);
    } catch (error) {
      cost = error instanceof Error ? error : new Error(String(error));
    }
    costs.perCall.set(call, cost);
    addTo(costs.session, call, cost);
    if (call.agentCallId !== undefined) addTo(containerOf(costs.byAgent, call.agentCallId), call, cost);
    if (call.masCallId !== undefined) addTo(containerOf(costs.byMas, call.masCallId), call, cost);
  }
  cache.costs = costs;
  return costs;
}

function fallbackNote(models: readonly string[]): string {
  // One flat string (a template would be a tree of pieces): the note is kept in every container's details.
  return ['no price for ', models.map((m) => `'${m}'`).join(', '), ', priced like gpt-4o'].join('');
}

interface LookupText {
  model: string;
  reasoning: string;
  note: string | undefined;
}

/** The sentences of a price lookup, built once per lookup (the table memoises lookups, so once per model). */
const lookupTexts = new WeakMap<PriceLookup, LookupText>();

function lookupText(lookup: PriceLookup): LookupText {
  let text = lookupTexts.get(lookup);
  if (!text) {
    const model = lookup.model ?? '(unknown model)';
    const note = lookup.fallback ? fallbackNote([model]) : undefined;
    const how = note ? `: ${note}` : `, priced as '${lookup.key}' (${lookup.matchedBy})`;
    text = { model, note, reasoning: `LLM call to '${model}'${how}.` };
    lookupTexts.set(lookup, text);
  }
  return text;
}

const DESCRIPTION =
  'Estimated USD cost of LLM calls from the LiteLLM price table: (input − cacheRead − cacheWrite)·input price + ' +
  'cacheRead·cache-read price + cacheWrite·cache-creation price + output·output price (the input price where a ' +
  'cache price is missing; input tokens include the cached ones). The price is looked up by response model, request ' +
  'model, provider/model, the name without a date suffix, the name without a provider prefix, an undated (or -latest) ' +
  'alias\'s dated snapshot (claude-sonnet-4 → claude-sonnet-4-20250514), then the same lower-cased and without a cloud ' +
  'vendor\'s prefix (us.anthropic.…); a model with no price is priced like gpt-4o and the reasoning says so. AgentCall, MASCall and Session sum their LLM calls ' +
  '(AgentCall: calls whose nearest enclosing agent call it is), with a per-model breakdown in details.';

const NO_CALLS: ContainerCost = Object.freeze({ value: 0, calls: 0, byModel: new Map<string, ModelTotals>() });

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
      const costs = sessionCosts(ctx.session, table());
      if (ctx.level === 'LLMCall') {
        const call = element as LLMCall;
        // A call outside the session's list (not expected from the engine) is priced on its own.
        const cost = costs.perCall.get(call) ?? pricedCall(call, costs.table);
        if (cost instanceof Error) throw cost;
        return { value: cost.total, reasoning: cost.reasoning, details: cost.details };
      }
      const container =
        ctx.level === 'Session'
          ? costs.session
          : ((ctx.level === 'AgentCall' ? costs.byAgent : costs.byMas).get(element.id) ?? NO_CALLS);
      if (container.error) throw container.error;
      const fallbackModels: string[] = [];
      for (const totals of container.byModel.values()) {
        if (totals.fallback && !fallbackModels.includes(totals.model)) fallbackModels.push(totals.model);
      }
      const note = fallbackModels.length > 0 ? fallbackNote(fallbackModels) : undefined;
      return {
        value: container.value,
        reasoning:
          `${fmt(container.value)} USD over ${container.calls} LLM call(s) of ${container.byModel.size} model(s)` +
          (note ? `; ${note}.` : '.'),
        details: { models: Object.fromEntries(container.byModel), ...(note ? { fallbackModels, note } : {}) },
      };
    },
  );
}

export const Cost = createCostMetric();
