/**
 * Step 5: the elements — agent, task, LLM and tool calls built from their spans, the explicit MAS calls given their
 * links, listing spans' MCP inventory — and the ioa_observe copies of LangChain tool runs folded (duplicate-tools.ts).
 * A span that fails is skipped, said.
 */
import type { AgentCall, LLMCall, MASCall, TaskCall, ToolCall } from '@mce/core';
import { field, stringField, stripKindSuffix } from '../dialects/index.js';
import { foldDuplicateToolRuns } from '../duplicate-tools.js';
import { errorMessage } from '../errors.js';
import { agentName, statusOf } from './span-facts.js';
import { set, type Context, type Node } from './node.js';
import { addListing, Inventory, ServerNames } from './inventory.js';
import { fillLlmCall } from './llm-call.js';
import type { MasCalls } from './mas-calls.js';
import type { Relations } from './relations.js';
import { fillToolCall } from './tool-call.js';

export interface Elements {
  agentCalls: AgentCall[];
  taskCalls: TaskCall[];
  llmCalls: LLMCall[];
  toolCalls: ToolCall[];
  inventory: Inventory;
  servers: ServerNames;
}

type Links = Pick<Relations, 'nearestElement' | 'agentOf' | 'attributesOf'> & Pick<MasCalls, 'masOf'>;

/** The fields every element has, its links to the others included. Built by assignment: this runs once per span. */
export function baseElement<T extends object>(n: Node, kind: string, links: Links): T {
  const sp = n.span;
  const o: Record<string, unknown> = { kind, id: sp.spanId, traceId: sp.traceId, name: sp.name, startTime: sp.startTime, endTime: sp.endTime };
  const st = statusOf(sp);
  o.status = st.status;
  set(o, 'error', st.error);
  const parentId = links.nearestElement(n)?.span.spanId;
  set(o, 'parentId', parentId);
  set(o, 'masCallId', links.masOf(n));
  set(o, 'agentCallId', links.agentOf(n));
  o.attributes = links.attributesOf(n, parentId);
  return o as T;
}

/** Each outer span with the spans merged into it, in node order. */
export function innerSpans(mergedInto: ReadonlyMap<Node, Node>): Map<Node, Node[]> {
  const innerOf = new Map<Node, Node[]>();
  for (const [inner, outer] of mergedInto) {
    const l = innerOf.get(outer);
    if (l) l.push(inner);
    else innerOf.set(outer, [inner]);
  }
  return innerOf;
}

export function buildElements(nodes: readonly Node[], mergedInto: ReadonlyMap<Node, Node>, links: Links, masCalls: MASCall[], ctx: Context): Elements {
  const out: Elements = { agentCalls: [], taskCalls: [], llmCalls: [], toolCalls: [], inventory: new Inventory(), servers: new ServerNames(ctx) };
  const innerOf = innerSpans(mergedInto);
  const masById = new Map(masCalls.map((m) => [m.id, m]));
  for (const n of nodes) {
    try {
      if (n.cls.kind === 'mcp') addListing(n, out.servers, out.inventory);
      else if (n.element) addElement(n, innerOf.get(n) ?? [], links, masById, out, ctx);
    } catch (err) {
      const s = n.span;
      ctx.warnAbout(s, { code: 'malformed-span', message: `skipped span ${s.spanId} (${s.name}): ${errorMessage(err)}`, span: s.spanId, sessionId: ctx.sessionId });
    }
  }
  // The ioa_observe copy of a LangChain tool run is the same call (duplicate-tools.ts).
  const folded = foldDuplicateToolRuns(out.toolCalls, [out.agentCalls, out.taskCalls, out.llmCalls, masCalls]);
  if (folded.length !== out.toolCalls.length) out.toolCalls.splice(0, out.toolCalls.length, ...folded);
  return out;
}

function addElement(n: Node, inner: readonly Node[], links: Links, masById: ReadonlyMap<string, MASCall>, out: Elements, ctx: Context): void {
  const s = n.span;
  switch (n.cls.kind) {
    case 'mas': {
      const m = masById.get(s.spanId);
      if (m) {
        const parentId = links.nearestElement(n)?.span.spanId;
        set(m, 'parentId', parentId);
        set(m, 'agentCallId', links.agentOf(n));
        m.attributes = links.attributesOf(n, parentId);
      }
      break;
    }
    case 'agent': {
      const a = baseElement<AgentCall>(n, 'AgentCall', links);
      a.agentName = agentName(n);
      set(a, 'agentId', stringField(s, 'agentId'));
      set(a, 'input', field(s, 'input'));
      set(a, 'output', field(s, 'output'));
      out.agentCalls.push(a);
      break;
    }
    case 'task': {
      const t = baseElement<TaskCall>(n, 'TaskCall', links);
      t.taskName = stringField(s, 'taskName') ?? stripKindSuffix(s.name);
      set(t, 'input', field(s, 'input'));
      set(t, 'output', field(s, 'output'));
      out.taskCalls.push(t);
      break;
    }
    case 'llm':
      out.llmCalls.push(fillLlmCall(baseElement<LLMCall>(n, 'LLMCall', links), n, inner, ctx));
      break;
    case 'tool':
      out.toolCalls.push(fillToolCall(baseElement<ToolCall>(n, 'ToolCall', links), n, inner, out.servers));
      break;
  }
}
