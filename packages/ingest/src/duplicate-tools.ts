/**
 * One tool run recorded twice by two instrumentations of one stack: ioa_observe's `@tool` span (named after the
 * decorated function, `uniform_distribution_number_generation.tool`) and LangChain's tool span (named after the tool
 * the model called). Their names may differ; their arguments are the same and their times overlap.
 * Such a pair is one ToolCall: the LangChain one (the name the model asked for) is kept and takes what only the
 * ioa_observe one has (result, agent, MAS call); calls whose parent was the dropped one take its parent.
 */
import type { Call, ToolCall } from '@mce/core';
import { stableJson } from '@mce/core';

const fromIoa = (t: ToolCall) => t.attributes?.['ioa_observe.span.kind'] === 'tool';

const overlap = (a: ToolCall, b: ToolCall) => a.startTime <= b.endTime && b.startTime <= a.endTime;

/** Arguments worth comparing: a non-empty object or list (two calls without arguments are not thereby the same). */
function argumentsKey(t: ToolCall): string | undefined {
  const a = t.arguments;
  if (a === undefined || a === null || typeof a !== 'object') return undefined;
  if (Object.keys(a as object).length === 0) return undefined;
  return stableJson(a);
}

/** The calls without the ioa_observe copies of LangChain tool runs; `others` are re-parented in place. */
export function foldDuplicateToolRuns(tools: readonly ToolCall[], others: readonly Call[][]): ToolCall[] {
  const ioa = tools.filter(fromIoa);
  if (ioa.length === 0 || ioa.length === tools.length) return [...tools];
  const byArgs = new Map<string, ToolCall[]>();
  for (const t of tools) {
    if (fromIoa(t)) continue;
    const key = argumentsKey(t);
    if (key === undefined) continue;
    const l = byArgs.get(key);
    if (l) l.push(t);
    else byArgs.set(key, [t]);
  }
  const dropped = new Map<string, ToolCall>();
  const taken = new Set<ToolCall>();
  for (const copy of ioa) {
    const key = argumentsKey(copy);
    const kept = key === undefined ? undefined : byArgs.get(key)?.find((t) => !taken.has(t) && overlap(t, copy));
    if (!kept) continue;
    taken.add(kept);
    dropped.set(copy.id, copy);
    if (kept.result === undefined && copy.result !== undefined) kept.result = copy.result;
    if (kept.agentCallId === undefined && copy.agentCallId !== undefined) kept.agentCallId = copy.agentCallId;
    if (kept.masCallId === undefined && copy.masCallId !== undefined) kept.masCallId = copy.masCallId;
    if (copy.status === 'error' && kept.status !== 'error') {
      kept.status = 'error';
      if (copy.error !== undefined) kept.error = copy.error;
    }
  }
  if (dropped.size === 0) return [...tools];
  for (const list of [tools, ...others]) {
    for (const c of list) {
      const parent = c.parentId === undefined ? undefined : dropped.get(c.parentId);
      if (!parent) continue;
      if (parent.parentId === undefined) delete c.parentId;
      else c.parentId = parent.parentId;
    }
  }
  return tools.filter((t) => !dropped.has(t.id));
}
