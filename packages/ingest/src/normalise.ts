/**
 * Spans of one session → an ontology Session.
 *
 * - Kinds come from the dialect tables (`dialects/`). A workflow/graph span nested inside an agent or another
 *   workflow is an inner chain (LlamaIndex `*.workflow` under an agent), so it becomes a TaskCall; only top-level
 *   ones are MAS calls. Spans of no known kind (HTTP, events, framework plumbing) are not elements but still link
 *   the tree: an element's `parentId` is its nearest ancestor that is an element.
 * - A tool span directly inside a tool span of the same name (MCP client + server spans, `execute_tool` around
 *   `tools/call`) is one call: the outer one is kept and takes the inner one's MCP details. Likewise an LLM span
 *   directly inside an LLM span (a framework span around the provider client's span): one call, tokens once
 *   (nested.ts; the store folds such spans of two parts of a session by the same rules).
 * - `agentCallId`: the nearest ancestor agent call, else the rule in `attribution.ts`.
 * - `masCallId`: the nearest ancestor MAS call, else the MAS call whose window holds the element's start. A session
 *   without any workflow span gets one implicit MAS call per trace that holds an agent, LLM or tool call (its id is
 *   the trace id, which cannot collide with 16-digit span ids).
 * - A call without an ancestor call among these spans whose chain of parent spans names a span that is not among them
 *   (another part of the session, or never exported) keeps that span's id in its attributes (`MISSING_PARENT_KEY`,
 *   links.ts), as does an implicit MAS call whose first parentless span names one: the store links the parts with it.
 * - Errors: span status ERROR, `exception` events, `error.type` — never the words of the output text.
 *
 * Each step is a module of normalise/, in the order below.
 */
import type { Session } from '@mce/core';
import { groupBy } from './links.js';
import type { SpanRecord } from './span.js';
import { setConversationEnds } from './normalise/conversation-ends.js';
import { buildElements } from './normalise/elements.js';
import { settleKinds } from './normalise/kinds.js';
import { masCallsOf } from './normalise/mas-calls.js';
import { byStart, createContext, type NormaliseOptions } from './normalise/node.js';
import { buildTree } from './normalise/nodes.js';
import { relate } from './normalise/relations.js';
import { assembleSession } from './normalise/session.js';
import { fillToolCallIds } from './normalise/tool-call-ids.js';
import { attachToolDefinitions, nameUnnamedServers } from './normalise/tool-definitions.js';

export type { NormaliseOptions } from './normalise/node.js';

export function normaliseSession(sessionId: string, spans: readonly SpanRecord[], opts: NormaliseOptions): Session {
  const ctx = createContext(sessionId, opts);
  // 1. Nodes, deduplicated by span id, in start order, linked to their parents.
  const tree = buildTree(spans, ctx);
  // 2. Final kinds: nested workflows are tasks; tool-in-same-tool and LLM-in-LLM spans merge into the outer one.
  const mergedInto = settleKinds(tree.nodes);
  // 3. Parent element, agent call and missing parent of each element.
  const rel = relate(tree);
  // 4. MAS calls, explicit or implicit.
  const { masCalls, masOf } = masCallsOf(tree.nodes, rel);
  // 5. Elements.
  const els = buildElements(tree.nodes, mergedInto, { ...rel, masOf }, masCalls, ctx);
  // 6. Tool definitions and the MCP inventory; tool call ids from the requests of the LLM calls.
  attachToolDefinitions(els.toolCalls, els.llmCalls, els.inventory);
  nameUnnamedServers(els.toolCalls, els.inventory, els.servers, tree.byId, ctx);
  // LLM calls in start order (built in span order already: the stable sort only makes explicit the order the steps
  // below rely on), grouped once per agent call and per MAS call.
  els.llmCalls.sort(byStart);
  const llmByAgent = groupBy(els.llmCalls, (c) => c.agentCallId);
  fillToolCallIds(els.toolCalls, llmByAgent);
  // 7. Conversation ends: agent calls, MAS calls, then the session.
  setConversationEnds(els.agentCalls, llmByAgent);
  setConversationEnds(masCalls, groupBy(els.llmCalls, (c) => c.masCallId));
  const calls = { ...els, masCalls, mcpServers: els.inventory.list() };
  return assembleSession(ctx, calls, tree.ordered, tree.nodes.map((n) => n.span));
}
