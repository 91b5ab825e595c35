/**
 * Attribution of calls to agents when the agent span is NOT an ancestor.
 *
 * Real ioa_observe/LangGraph traces (the ClickHouse fixtures) record each `*.agent` span as the root of its own
 * trace, with only `agent_start_event`/`agent_end_event` (and sometimes HTTP) children, while the LLM and tool
 * spans of that agent hang under the graph's `*.task` spans in the workflow trace. What ties them together is
 * carried on every span:
 *   1. the LangGraph checkpoint namespace (`ioa_observe.association.properties.checkpoint_ns` or
 *      `…langgraph_checkpoint_ns`, up to the first `|`), e.g. `researcher:14bd5cfa-…`: the agent span carries the
 *      namespace of the graph node it runs in, and every span inside that node run carries the same namespace;
 *   2. the agent name: `agent_id`, `ioa_observe.workflow.name` or `gen_ai.agent.name` on a span equals the agent
 *      span's name.
 * Rule: a call with no ancestor agent call is attributed to an agent call of the same session that matches by (1),
 * else by (2), and whose time window contains the call's start; among several (an agent run twice), the one that
 * started last before the call. No match: the call stays unattributed (never guessed from time alone).
 * `traceloop.entity.path` is not used: its first segment is the graph node (`researcher`), not always the agent
 * name (`research`).
 */
import type { SpanRecord } from './span.js';

/** What attribution reads of a span (a stored call has the same: its span's attributes and start). */
export type Attributed = Pick<SpanRecord, 'attributes' | 'startTime'>;

const NS_KEYS = ['ioa_observe.association.properties.checkpoint_ns', 'ioa_observe.association.properties.langgraph_checkpoint_ns'];
const NAME_KEYS = ['agent_id', 'ioa_observe.workflow.name', 'gen_ai.agent.name'];

export function checkpointNamespace(span: Pick<SpanRecord, 'attributes'>): string | undefined {
  for (const k of NS_KEYS) {
    const v = span.attributes[k];
    if (typeof v === 'string' && v !== '') return v.split('|')[0];
  }
  return undefined;
}

export interface AgentCandidate {
  id: string;
  name: string;
  /** Other names the agent span goes by (an ioa_observe method's own `agent_id`, `moderator-agent.invoke`). */
  aliases?: readonly string[];
  namespace?: string;
  start: number;
  end: number;
}

export class AgentMatcher {
  private byNamespace = new Map<string, AgentCandidate[]>();
  private byName = new Map<string, AgentCandidate[]>();

  constructor(agents: AgentCandidate[]) {
    for (const a of agents) {
      if (a.namespace) push(this.byNamespace, a.namespace, a);
      push(this.byName, a.name, a);
      for (const alias of a.aliases ?? []) if (alias !== a.name) push(this.byName, alias, a);
    }
  }

  /** The agent call a span without an agent ancestor belongs to, or undefined. */
  match(span: Attributed): string | undefined {
    const ns = checkpointNamespace(span);
    if (ns) {
      const hit = pick(this.byNamespace.get(ns), span.startTime);
      if (hit) return hit;
    }
    for (const k of NAME_KEYS) {
      const v = span.attributes[k];
      if (typeof v !== 'string') continue;
      const hit = pick(this.byName.get(v), span.startTime);
      if (hit) return hit;
    }
    return undefined;
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T) {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

function pick(candidates: AgentCandidate[] | undefined, t: number): string | undefined {
  let best: AgentCandidate | undefined;
  for (const c of candidates ?? []) {
    if (c.start <= t && t <= c.end && (!best || c.start > best.start)) best = c;
  }
  return best?.id;
}
