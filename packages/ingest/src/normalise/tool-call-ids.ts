/**
 * Step 6, tool call ids: a tool span without a call id takes it from the model's request that asked for it — the
 * latest earlier LLM call of the same agent whose output calls a tool of that name, the one with the same arguments
 * first (each id used once).
 */
import { stableJson, type LLMCall, type ToolCall } from '@mce/core';

/** A tool call (with an id) that an LLM call's output asked for. */
export interface ToolRequest {
  start: number;
  id: string;
  /** The requested arguments as canonical JSON: a tool span with the same arguments answered this request. */
  args: string;
}

/**
 * Per tool name, the requests of these LLM calls in start order; requests of calls that started together keep list
 * order (the calls' start order, then message order). Calls without a start time can never be "earlier".
 */
export function toolRequests(calls: readonly LLMCall[]): Map<string, ToolRequest[]> {
  const byName = new Map<string, ToolRequest[]>();
  for (const c of calls) {
    if (Number.isNaN(c.startTime)) continue;
    for (const m of c.outputMessages) {
      for (const tc of m.toolCalls ?? []) {
        if (!tc.id) continue;
        const request = { start: c.startTime, id: tc.id, args: stableJson(tc.arguments ?? null) };
        const l = byName.get(tc.name);
        if (l) l.push(request);
        else byName.set(tc.name, [request]);
      }
    }
  }
  for (const l of byName.values()) l.sort((a, b) => a.start - b.start);
  return byName;
}

/**
 * The first unused request met walking the calls that started at or before `t` from the latest back; requests of
 * calls that started together are taken in list order (as a stable latest-first sort of the calls gives them).
 */
export function latestUnused(requests: readonly ToolRequest[], t: number, used: ReadonlySet<string>, args?: string): ToolRequest | undefined {
  // Binary search: `end` becomes the index of the first request that started after t.
  let lo = 0;
  let end = requests.length;
  while (lo < end) {
    const mid = (lo + end) >>> 1;
    if (requests[mid]!.start <= t) lo = mid + 1;
    else end = mid;
  }
  // Parallel calls of one tool can start in any order: the unused request with these very arguments, latest first,
  // before the positional rule below.
  if (args !== undefined) {
    for (let i = end - 1; i >= 0; i--) if (requests[i]!.args === args && !used.has(requests[i]!.id)) return requests[i];
  }
  while (end > 0) {
    const start = requests[end - 1]!.start;
    let begin = end - 1;
    while (begin > 0 && requests[begin - 1]!.start === start) begin--;
    for (let i = begin; i < end; i++) if (!used.has(requests[i]!.id)) return requests[i];
    end = begin;
  }
  return undefined;
}

/** Sets the missing `toolCallId`s; `llmByAgent` holds each agent call's LLM calls in start order. */
export function fillToolCallIds(toolCalls: readonly ToolCall[], llmByAgent: ReadonlyMap<string | undefined, readonly LLMCall[]>): void {
  const usedIds = new Set(toolCalls.map((t) => t.toolCallId).filter((x): x is string => !!x));
  const requests = new Map<string | undefined, Map<string, ToolRequest[]>>();
  for (const t of toolCalls) {
    if (t.toolCallId) continue;
    let byName = requests.get(t.agentCallId);
    if (!byName) requests.set(t.agentCallId, (byName = toolRequests(llmByAgent.get(t.agentCallId) ?? [])));
    const asked = byName.get(t.toolName) ?? (t.mcp?.server ? byName.get(`mcp__${t.mcp.server}__${t.toolName}`) : undefined);
    const r = latestUnused(asked ?? [], t.startTime, usedIds, t.arguments === undefined ? undefined : stableJson(t.arguments));
    if (r) {
      t.toolCallId = r.id;
      usedIds.add(r.id);
    }
  }
}
