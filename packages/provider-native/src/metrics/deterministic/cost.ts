import { skip, type LLMCall, type Session } from '@mce/core';
import { priceCall, type CallPrice, type PriceIdentity } from '../../prices/call-price.js';
import { defaultPriceRefresher, defaultPriceTable } from '../../prices/committed-prices.js';
import type { PriceTable } from '../../prices/price-table.js';
import { fmt, nativeMetric, type NativeMetric } from './define.js';
import { sessionCache } from './session-cache.js';
import { tokenCount, USAGE_NOT_REPORTED, withoutUsageNote } from './token-counts.js';

export type LLMCallCost = CallPrice;

/**
 * Cost of one LLM call priced with `table`, then genai-prices, the recorded cost, gpt-4o (call-price.ts); undefined for
 * a call without usage or recorded cost. Throws on an invalid token count.
 */
export function llmCallCost(call: LLMCall, table: PriceTable): LLMCallCost | undefined {
  const reported = call.usage.reported !== false;
  const usage = reported
    ? {
        inputTokens: tokenCount(call, 'inputTokens'),
        outputTokens: tokenCount(call, 'outputTokens'),
        cacheReadTokens: tokenCount(call, 'cacheReadTokens'),
        cacheWriteTokens: tokenCount(call, 'cacheWriteTokens'),
      }
    : { inputTokens: 0, outputTokens: 0 };
  return priceCall(call, usage, table);
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
  /** Which source priced the calls (litellm, genai-prices, recorded, gpt-4o-fallback). */
  source: string;
  fallback: boolean;
}

/** The sum over the LLM calls of one container (AgentCall, MASCall, Session), or the first of its calls' errors. */
interface ContainerCost {
  value: number;
  calls: number;
  byModel: Map<string, ModelTotals>;
  /** Calls neither priced nor with a recorded cost: their trace records no usage. */
  withoutUsage: number;
  error?: Error;
}

/**
 * What Cost reports for one LLM call, built once per call with the session's costs: the result's details object is
 * this one (not a copy per result), so a 50,000-call session keeps one details object per call and nothing else.
 */
interface PricedCall {
  lookup: PriceIdentity;
  total: number;
  reasoning: string;
  details: Record<string, unknown>;
}

/** A call's price with its sentence and details, or undefined when its trace records no usage (and no cost). */
function pricedCall(call: LLMCall, table: PriceTable): PricedCall | undefined {
  const price = llmCallCost(call, table);
  if (!price) return undefined;
  const { breakdown, identity: lookup } = price;
  const text = lookupText(lookup);
  // Written out in the order of the details' keys: model, source, price key, match, fallback, the breakdown, the note.
  const details: Record<string, unknown> = {
    model: text.model,
    source: lookup.source,
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
  perCall: Map<LLMCall, PricedCall | Error | undefined>;
  byAgent: Map<string, ContainerCost>;
  byMas: Map<string, ContainerCost>;
  session: ContainerCost;
}


/** Model label of a call in breakdowns: response model, else request model. */
function modelLabel(call: LLMCall): string {
  return call.responseModel?.trim() || call.requestModel?.trim() || '(unknown model)';
}

function emptyContainer(): ContainerCost {
  return { value: 0, calls: 0, byModel: new Map(), withoutUsage: 0 };
}

function addTo(container: ContainerCost, call: LLMCall, cost: PricedCall | Error | undefined): void {
  container.calls += 1;
  if (cost === undefined) {
    container.withoutUsage += 1;
    return;
  }
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
      source: cost.lookup.source,
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
    let cost: PricedCall | Error | undefined;
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

/** The sentences of a price, built once per price identity (one per model and entry: call-price.ts). */
const lookupTexts = new WeakMap<PriceIdentity, LookupText>();

const SOURCE_WORDS: Record<PriceIdentity['source'], string> = {
  litellm: 'the LiteLLM table',
  'genai-prices': 'genai-prices',
  recorded: 'the cost recorded on the span',
  'gpt-4o-fallback': 'the gpt-4o fallback',
};

function lookupText(lookup: PriceIdentity): LookupText {
  let text = lookupTexts.get(lookup);
  if (!text) {
    const model = lookup.model ?? '(unknown model)';
    const note = lookup.fallback ? fallbackNote([model]) : undefined;
    const how = note ? `: ${note}` : `, priced as '${lookup.key}' from ${SOURCE_WORDS[lookup.source]} (${lookup.matchedBy})`;
    text = { model, note, reasoning: `LLM call to '${model}'${how}.` };
    lookupTexts.set(lookup, text);
  }
  return text;
}

const DESCRIPTION =
  'Estimated USD cost of LLM calls: (input − cacheRead − cacheWrite)·input price + cacheRead·cache-read price + ' +
  'cacheWrite·cache-creation price + output·output price (the input price where a cache price is missing; input ' +
  'tokens include the cached ones). Prices come from the first source that has the model: the LiteLLM table ' +
  '(committed copy, refreshed at run time; looked up by response model, request model, provider/model, the name ' +
  'without a date suffix or provider prefix, an undated or -latest alias\'s dated snapshot, lower-cased, without a ' +
  'cloud vendor\'s prefix), then @pydantic/genai-prices\' bundled data (with the provider from gen_ai.provider.name, ' +
  'gen_ai.system or server.address), then the cost the framework recorded on the span (gen_ai.usage.cost, ' +
  'gen_ai.usage.input_cost/output_cost, operation.cost, Langfuse costDetails), and only then gpt-4o\'s price, which ' +
  'the reasoning names. details.source says which priced the call. A call whose trace records no token count (and no ' +
  'cost) is skipped as "usage not reported". AgentCall, MASCall and Session sum their LLM calls (AgentCall: calls ' +
  'whose nearest enclosing agent call it is), with a per-model breakdown in details and the count of calls without usage.';

const NO_CALLS: ContainerCost = Object.freeze({ value: 0, calls: 0, byModel: new Map<string, ModelTotals>(), withoutUsage: 0 });

/** The default table's run-time refresh, awaited (bounded by its timeout) before a batch is priced. */
const defaultReady = () => defaultPriceRefresher().fresh();

/** A container's Cost: the sum over its priced calls, or a skip when none of its calls reported usage. */
function containerResult(container: ContainerCost) {
  if (container.error) throw container.error;
  if (container.withoutUsage > 0 && container.withoutUsage === container.calls) {
    return skip(`usage not reported by any of its ${container.calls} LLM call(s)`);
  }
  const fallbackModels: string[] = [];
  for (const totals of container.byModel.values()) {
    if (totals.fallback && !fallbackModels.includes(totals.model)) fallbackModels.push(totals.model);
  }
  const note = fallbackModels.length > 0 ? fallbackNote(fallbackModels) : undefined;
  const priced = container.calls - container.withoutUsage;
  return {
    value: container.value,
    reasoning:
      `${fmt(container.value)} USD over ${priced} LLM call(s) of ${container.byModel.size} model(s)` +
      withoutUsageNote(container.withoutUsage) +
      (note ? `; ${note}.` : '.'),
    details: {
      models: Object.fromEntries(container.byModel),
      ...(container.withoutUsage > 0 ? { callsWithoutUsage: container.withoutUsage } : {}),
      ...(note ? { fallbackModels, note } : {}),
    },
  };
}

/**
 * The Cost metric pricing with `table` (the package's shared table by default). `ready` is awaited before each batch:
 * for the shared table, its run-time refresh, so that Cost prices with the table the judge prices with in the same run.
 */
export function createCostMetric(
  table: () => PriceTable = defaultPriceTable,
  ready: (() => Promise<void>) | undefined = table === defaultPriceTable ? defaultReady : undefined,
): NativeMetric {
  const metric = nativeMetric(
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
        const cost = costs.perCall.has(call) ? costs.perCall.get(call) : pricedCall(call, costs.table);
        if (cost instanceof Error) throw cost;
        if (cost === undefined) return skip(USAGE_NOT_REPORTED);
        return { value: cost.total, reasoning: cost.reasoning, details: cost.details };
      }
      const container =
        ctx.level === 'Session'
          ? costs.session
          : ((ctx.level === 'AgentCall' ? costs.byAgent : costs.byMas).get(element.id) ?? NO_CALLS);
      return containerResult(container);
    },
  );
  if (!ready) return metric;
  return Object.freeze({
    ...metric,
    async computeBatch(elements: Parameters<NativeMetric['computeBatch']>[0], ctx: Parameters<NativeMetric['computeBatch']>[1]) {
      await ready();
      return metric.computeBatch(elements, ctx);
    },
  });
}

export const Cost = createCostMetric();
