import type { Call, Element, LLMCall, OntologyLevel, Session, TokenUsage } from '@mce/core';
import { perSession } from './session-cache.js';
import { invalidCount, isCount, type TokenField } from './token-counts.js';

/** A call failed when its status is `error` or it carries an error. */
export function isErrored(call: Call): boolean {
  return call.status === 'error' || call.error !== undefined;
}

export const SUMMED_TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens'] as const satisfies readonly TokenField[];
export type SummedTokenField = (typeof SUMMED_TOKEN_FIELDS)[number];

/** Counts and token sums of the calls one container (Session, MASCall, AgentCall) holds. */
export interface ContainerStats {
  llmCalls: number;
  toolCalls: number;
  agentCalls: number;
  llmErrors: number;
  toolErrors: number;
  tokens: Record<SummedTokenField, number>;
  /** LLM calls whose source recorded no token count (`usage.reported === false`): left out of the sums. */
  callsWithoutUsage: number;
  /** The first invalid count met per field: a sum over it is reported as that error, never as NaN. */
  tokenErrors?: Partial<Record<SummedTokenField, Error>>;
}

interface SessionStats {
  session: ContainerStats;
  byAgent: Map<string, ContainerStats>;
  byMas: Map<string, ContainerStats>;
}


function empty(): ContainerStats {
  return {
    llmCalls: 0,
    toolCalls: 0,
    agentCalls: 0,
    llmErrors: 0,
    toolErrors: 0,
    tokens: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    callsWithoutUsage: 0,
  };
}

const EMPTY: Readonly<ContainerStats> = Object.freeze(empty());

function containerIn(map: Map<string, ContainerStats>, id: string): ContainerStats {
  let stats = map.get(id);
  if (!stats) {
    stats = empty();
    map.set(id, stats);
  }
  return stats;
}

/** The containers a call counts in: the session, its MAS call, its nearest enclosing agent call. */
function containersOf(all: SessionStats, call: Call, out: ContainerStats[]): number {
  out[0] = all.session;
  let n = 1;
  if (call.masCallId !== undefined) out[n++] = containerIn(all.byMas, call.masCallId);
  if (call.agentCallId !== undefined) out[n++] = containerIn(all.byAgent, call.agentCallId);
  return n;
}

function addLLMCall(targets: ContainerStats[], n: number, call: LLMCall): void {
  const errored = isErrored(call);
  for (let t = 0; t < n; t++) {
    const stats = targets[t]!;
    stats.llmCalls += 1;
    if (errored) stats.llmErrors += 1;
  }
  const usage = call.usage as Partial<TokenUsage> | undefined;
  if (usage?.reported === false) {
    for (let t = 0; t < n; t++) targets[t]!.callsWithoutUsage += 1;
    return;
  }
  const input = usage?.inputTokens;
  const output = usage?.outputTokens;
  const total = usage?.totalTokens;
  if (isCount(input) && isCount(output) && isCount(total)) {
    for (let t = 0; t < n; t++) {
      const tokens = targets[t]!.tokens;
      tokens.inputTokens += input;
      tokens.outputTokens += output;
      tokens.totalTokens += total;
    }
    return;
  }
  for (const field of SUMMED_TOKEN_FIELDS) {
    const value = usage?.[field];
    if (isCount(value)) {
      for (let t = 0; t < n; t++) targets[t]!.tokens[field] += value;
      continue;
    }
    const error = invalidCount(call, field, value);
    for (let t = 0; t < n; t++) (targets[t]!.tokenErrors ??= {})[field] ??= error;
  }
}

/**
 * Every container's counts and token sums, in one pass over the session's calls (built at the first request, kept
 * per session object): container-level metrics then read a map instead of walking the calls again.
 */
export function sessionStats(session: Session): SessionStats {
  return perSession(session, 'containerStats', buildStats);
}

function buildStats(session: Session): SessionStats {
  const all: SessionStats = { session: empty(), byAgent: new Map(), byMas: new Map() };
  const targets: ContainerStats[] = [];
  // Indexed loops: an unoptimised for-of (this runs once per session) allocates an iterator result per call.
  const { llmCalls, toolCalls, agentCalls } = session;
  for (let i = 0; i < llmCalls.length; i++) addLLMCall(targets, containersOf(all, llmCalls[i]!, targets), llmCalls[i]!);
  for (let i = 0; i < toolCalls.length; i++) {
    const call = toolCalls[i]!;
    const n = containersOf(all, call, targets);
    const errored = isErrored(call);
    for (let t = 0; t < n; t++) {
      targets[t]!.toolCalls += 1;
      if (errored) targets[t]!.toolErrors += 1;
    }
  }
  for (let i = 0; i < agentCalls.length; i++) {
    const n = containersOf(all, agentCalls[i]!, targets);
    for (let t = 0; t < n; t++) targets[t]!.agentCalls += 1;
  }
  return all;
}

/**
 * The stats of a container element: the whole session for a Session, the calls with its `masCallId` for a MASCall,
 * the calls whose nearest enclosing agent call it is for an AgentCall (nested agent calls' own calls count there).
 */
export function statsOf(level: OntologyLevel, element: Element, session: Session): Readonly<ContainerStats> {
  const all = sessionStats(session);
  if (level === 'Session') return all.session;
  if (level === 'MASCall') return all.byMas.get(element.id) ?? EMPTY;
  if (level === 'AgentCall') return all.byAgent.get(element.id) ?? EMPTY;
  throw new Error(`call counts are kept for Session, MASCall and AgentCall, not ${level}`);
}
