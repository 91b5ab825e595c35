/**
 * Step 4: the MAS calls — the workflow spans, else one implicit MAS call per trace that holds an agent, LLM or tool
 * call (its id is the trace id, which cannot collide with 16-digit span ids) — and each element's MAS call.
 */
import type { MASCall } from '@mce/core';
import { field, stringField, stripKindSuffix } from '../dialects/index.js';
import { MasWindows, MISSING_PARENT_KEY } from '../links.js';
import { baseOf, statusOf } from './span-facts.js';
import { ifDefined, maxOf, minOf, type Node } from './node.js';
import type { Relations } from './relations.js';

export interface MasCalls {
  masCalls: MASCall[];
  /** The MAS call of a node that is not one itself. */
  masOf: (n: Node) => string | undefined;
}

export function masCallsOf(nodes: readonly Node[], rel: Pick<Relations, 'nearestMas' | 'missingParent'>): MasCalls {
  const explicit = explicitMasCalls(nodes);
  const masCalls = explicit.length > 0 ? explicit : implicitMasCalls(nodes, rel.missingParent);
  // MAS calls by trace: an element's own trace is looked at first, so a session of many traces (one MAS call each)
  // does not match every element against every MAS call.
  const windows = new MasWindows(masCalls);
  const masOf = (n: Node): string | undefined => {
    if (n.cls.kind === 'mas') return undefined;
    const m = rel.nearestMas(n);
    if (m) return m.span.spanId;
    return windows.of(n.span.traceId, n.span.startTime);
  };
  return { masCalls, masOf };
}

export function explicitMasCalls(nodes: readonly Node[]): MASCall[] {
  return nodes.filter((n) => n.element && n.cls.kind === 'mas').map((n) => ({
    kind: 'MASCall',
    ...baseOf(n),
    // `invoke_workflow research` (GenAI's span name) is the workflow `research`, as `invoke_agent X` is the agent X.
    ...ifDefined('workflowName', stringField(n.span, 'workflowName') ?? (stripKindSuffix(n.span.name.replace(/^invoke_workflow\s+/, '')) || undefined)),
    ...ifDefined('input', field(n.span, 'input')),
    ...ifDefined('output', field(n.span, 'output')),
  }));
}

/** One MAS call per trace that holds an agent, LLM or tool call, in first-seen trace order. */
export function implicitMasCalls(nodes: readonly Node[], missingParent: (n: Node) => string | undefined): MASCall[] {
  const traces = new Map<string, Node[]>();
  for (const n of nodes) {
    let l = traces.get(n.span.traceId);
    if (!l) traces.set(n.span.traceId, (l = []));
    l.push(n);
  }
  const masCalls: MASCall[] = [];
  for (const [traceId, list] of traces) {
    if (!list.some((n) => n.element && (n.cls.kind === 'agent' || n.cls.kind === 'llm' || n.cls.kind === 'tool'))) continue;
    const root = list.find((n) => !n.parent) ?? list[0]!;
    // A root that names a parent span not among these spans is only this part's first span of the trace: said, so
    // that a part holding the trace's real root is preferred when the store joins the parts.
    const missing = missingParent(root);
    masCalls.push({
      kind: 'MASCall',
      id: traceId,
      traceId,
      name: root.span.name,
      startTime: minOf(list, (n) => n.span.startTime),
      endTime: maxOf(list, (n) => n.span.endTime),
      // The run's outcome is its root span's (ok, error or unset), as an explicit MAS call's is its own: a tool error
      // the agent handled does not make the run an error.
      status: statusOf(root.span).status,
      ...ifDefined('workflowName', stringField(root.span, 'workflowName')),
      ...ifDefined('attributes', missing === undefined ? undefined : { [MISSING_PARENT_KEY]: missing }),
    });
  }
  return masCalls;
}
