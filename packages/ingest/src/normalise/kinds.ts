/**
 * Step 2: the final kinds. Nested workflows are tasks; a root run of agents is the MAS call; the same run or call
 * seen by two instrumentations is one: an inner agent run of the same name is plumbing, and a tool span inside a
 * tool span of the same name, or an LLM span inside an LLM span, merges into the outer one. Marks the elements.
 */
import { agentName, isTraceAgent, runName, toolNameOf } from './span-facts.js';
import { nearest, type Node } from './node.js';

/** Settles every node's kind and `element`; returns the merged spans, each with the outermost span it merged into. */
export function settleKinds(nodes: readonly Node[]): Map<Node, Node> {
  nestedWorkflowsAreTasks(nodes);
  rootRunsOfAgentsAreMas(nodes);
  innerRunsOfTheSameAgentArePlumbing(nodes);
  const mergedInto = sameCallsMerged(nodes);
  for (const n of nodes) n.element = ['mas', 'agent', 'task', 'llm', 'tool'].includes(n.cls.kind) && !mergedInto.has(n);
  return mergedInto;
}

export function nestedWorkflowsAreTasks(nodes: readonly Node[]): void {
  for (const n of nodes) {
    if (n.cls.kind === 'mas' && nearest(n, (p) => p.cls.kind === 'agent' || p.cls.kind === 'mas')) n.cls = { kind: 'task' };
  }
}

/**
 * A root chain that runs agents is the MAS invocation (OpenInference has no workflow kind: its graph or crew run is a
 * top-level CHAIN span). OpenInference's openai-agents instrumentation makes the trace itself (`Agent workflow`, the
 * trace's name) a root AGENT span around the agents: the run of the system, not an agent.
 */
export function rootRunsOfAgentsAreMas(nodes: readonly Node[]): void {
  const hasAgentBelow = new Set<Node>();
  // A node already marked has its ancestors marked too: each chain is climbed once.
  for (const n of nodes) if (n.cls.kind === 'agent') for (let p = n.parent; p && !hasAgentBelow.has(p); p = p.parent) hasAgentBelow.add(p);
  for (const n of nodes) if (n.cls.kind === 'task' && !n.parent && hasAgentBelow.has(n)) n.cls = { kind: 'mas' };
  for (const n of nodes) if (isTraceAgent(n) && hasAgentBelow.has(n)) n.cls = { kind: 'mas' };
}

/**
 * The same run seen by two instrumentations (OpenLLMetry's `invoke_agent LangGraph` around `LangGraph.workflow`, an
 * agent span inside an agent span of its own name) is one agent call: the inner span is plumbing.
 */
export function innerRunsOfTheSameAgentArePlumbing(nodes: readonly Node[]): void {
  for (const n of nodes) {
    if (n.cls.kind !== 'agent' && n.cls.kind !== 'task' && n.cls.kind !== 'mas') continue;
    const outer = nearest(n, (p) => p.cls.kind !== 'other');
    if (outer?.cls.kind === 'agent' && runName(n) === agentName(outer)) n.cls = { kind: 'other' };
  }
}

/** Tool-in-same-tool and LLM-in-LLM spans, each with the outermost span of its chain (the call). */
export function sameCallsMerged(nodes: readonly Node[]): Map<Node, Node> {
  const mergedInto = new Map<Node, Node>();
  for (const n of nodes) {
    if (n.cls.kind !== 'tool' && n.cls.kind !== 'llm') continue;
    const outer = nearest(n, (p) => p.cls.kind !== 'other');
    if (!outer || outer.cls.kind !== n.cls.kind) continue;
    // The same model call seen by two instrumentations (LangChain's `ChatOpenAI.chat` around the OpenAI client's
    // `openai.chat`) is one call, not two: its tokens must not count twice.
    if (n.cls.kind === 'llm' || toolNameOf(outer.span, outer.cls) === toolNameOf(n.span, n.cls)) mergedInto.set(n, mergedInto.get(outer) ?? outer);
  }
  // Spans that start together come shortest first, so an inner span may have been merged into a middle one before the
  // middle one was merged outward: every chain ends at the outermost span (the call), or the inner data is lost.
  for (const [inner, outer] of mergedInto) {
    let target = outer;
    while (mergedInto.has(target)) target = mergedInto.get(target) as Node;
    if (target !== outer) mergedInto.set(inner, target);
  }
  return mergedInto;
}
