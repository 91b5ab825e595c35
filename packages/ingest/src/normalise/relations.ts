/**
 * Step 3: how each element relates to the others once kinds are final — its parent element, its agent call (the
 * nearest ancestor agent call, else the attribution fallback of attribution.ts, else a sibling agent's window), its
 * MAS call ancestor, and the span id where its chain leaves these spans.
 */
import { AgentMatcher, checkpointNamespace, type AgentCandidate } from '../attribution.js';
import { MISSING_PARENT_KEY } from '../links.js';
import { agentName, aliasesOf } from './span-facts.js';
import { ifDefined, isElement, nearestOnce, type Node } from './node.js';
import type { SpanTree } from './nodes.js';
import { SiblingAgents } from './sibling-agents.js';

export interface Relations {
  /** The agent calls among the elements, in start order. */
  agentNodes: Node[];
  nearestElement: (n: Node) => Node | undefined;
  nearestMas: (n: Node) => Node | undefined;
  /** The agent call of `n`, if any. */
  agentOf: (n: Node) => string | undefined;
  /** The parent span id where the chain of `n` (its own root here) leaves these spans, when it does. */
  missingParent: (n: Node) => string | undefined;
  /** The span's attributes, with the missing parent of a call that has no ancestor call here (see links.ts). */
  attributesOf: (n: Node, parentId: string | undefined) => Record<string, unknown>;
}

export function relate(tree: SpanTree): Relations {
  const { nodes, byId } = tree;
  const agentNodes = nodes.filter((n) => n.element && n.cls.kind === 'agent');
  const matcher = new AgentMatcher(agentNodes.map(agentCandidate));
  // Classes and elements are final from here on: the nearest agent, MAS call and element are remembered per node.
  const nearestAgent = nearestOnce((p) => !!p.element && p.cls.kind === 'agent');
  const nearestMas = nearestOnce((p) => !!p.element && p.cls.kind === 'mas');
  const nearestElement = nearestOnce(isElement);
  const rootOf = nearestOnce((p) => !p.parent);
  const missingParent = (n: Node): string | undefined => {
    const top = rootOf(n) ?? n;
    const id = top.span.parentSpanId;
    return id && !byId.has(id) ? id : undefined;
  };
  // The key is reserved: a span's own attribute of that name is dropped, or the store would take it for a missing parent.
  const attributesOf = (n: Node, parentId: string | undefined): Record<string, unknown> => {
    const missing = parentId === undefined ? missingParent(n) : undefined;
    if (missing !== undefined) return { ...n.span.attributes, [MISSING_PARENT_KEY]: missing };
    if (!(MISSING_PARENT_KEY in n.span.attributes)) return n.span.attributes;
    const { [MISSING_PARENT_KEY]: _reserved, ...own } = n.span.attributes;
    return own;
  };
  const siblings = new SiblingAgents(agentNodes);
  const agentOf = (n: Node): string | undefined => {
    const a = nearestAgent(n);
    if (a) return a.span.spanId;
    if (n.cls.kind === 'agent' || n.cls.kind === 'mas') return undefined;
    return matcher.match(n.span) ?? siblings.of(n)?.span.spanId;
  };
  return { agentNodes, nearestElement, nearestMas, agentOf, missingParent, attributesOf };
}

/** An agent call as the attribution fallback knows it. */
export function agentCandidate(n: Node): AgentCandidate {
  return {
    id: n.span.spanId,
    name: agentName(n),
    aliases: aliasesOf(n.span),
    ...ifDefined('namespace', checkpointNamespace(n.span)),
    start: n.span.startTime,
    end: n.span.endTime,
  };
}
