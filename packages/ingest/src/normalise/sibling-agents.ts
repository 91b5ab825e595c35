import type { Node } from './node.js';

/**
 * Microsoft Agent Framework workflows run each agent inside an executor span, and record the agent's LLM and tool
 * spans as siblings of its `invoke_agent` span, not as its children: a call without an agent ancestor belongs to the
 * agent span that is a child of one of its ancestors (the nearest such ancestor) and whose window holds the call's start.
 */
export class SiblingAgents {
  private byParent = new Map<Node, Node[]>();
  constructor(agents: readonly Node[]) {
    for (const a of agents) {
      if (!a.parent) continue;
      const l = this.byParent.get(a.parent);
      if (l) l.push(a);
      else this.byParent.set(a.parent, [a]);
    }
  }
  of(n: Node): Node | undefined {
    if (this.byParent.size === 0) return undefined;
    const t = n.span.startTime;
    for (let p = n.parent; p; p = p.parent) {
      const agents = this.byParent.get(p);
      if (!agents) continue;
      let best: Node | undefined;
      for (const a of agents) if (a !== n && a.span.startTime <= t && t <= a.span.endTime && (!best || a.span.startTime > best.span.startTime)) best = a;
      return best;
    }
    return undefined;
  }
}
