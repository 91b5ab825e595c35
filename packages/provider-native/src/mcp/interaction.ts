/**
 * What the MCP metrics judge, independent of how it was traced: the user's request, what the user saw, the MCP
 * servers on offer and the MCP primitives called. Built from a Session / AgentCall, or written directly (tests,
 * the labelled set, library users).
 */
import type { MCPPrimitiveKind, MCPServer } from '@mce/core';
import { show as valueText } from '../judge/transcript.js';

export interface MCPCallRecord {
  /** Server the call went to, when known. */
  server?: string;
  kind: MCPPrimitiveKind;
  /** Tool or prompt name; for a resource, its name or uri. */
  name: string;
  /** For a resource read. */
  uri?: string;
  arguments?: unknown;
  result?: unknown;
  /** The call failed: the error message (or `true` when only the status says so). */
  error?: string | true;
}

export interface MCPInteraction {
  /** The user's request (one turn), or the whole conversation's user messages. */
  request: string;
  /** What the user saw in reply. */
  output: string;
  servers: MCPServer[];
  calls: MCPCallRecord[];
  /** Earlier conversation (previous turns, their primitives' results included) the arguments may legitimately draw on. */
  priorContext?: string;
  /** The same turns as the user saw them: their requests and replies only (no primitive's raw result). */
  priorVisible?: string;
}

/** A conversation split into turns: a user message and everything until the next one. */
export interface MCPConversation {
  servers: MCPServer[];
  turns: Omit<MCPInteraction, 'servers' | 'priorContext' | 'priorVisible'>[];
}

/** The interaction of one turn of a conversation, with the earlier turns as context. */
export function turnInteraction(conversation: MCPConversation, index: number): MCPInteraction {
  const turn = conversation.turns[index];
  if (!turn) throw new RangeError(`no turn ${index}`);
  const earlier = conversation.turns.slice(0, index);
  const prior = earlier.map((t) => [t.request, t.output, ...t.calls.map((c) => valueText(c.result))].join('\n')).join('\n');
  const visible = earlier.map((t) => [t.request, t.output].filter(Boolean).join('\n')).join('\n');
  return { ...turn, servers: conversation.servers, ...(prior ? { priorContext: prior } : {}), ...(visible ? { priorVisible: visible } : {}) };
}

/** The whole conversation as one interaction (every request, every call, the last output). */
export function wholeInteraction(conversation: MCPConversation): MCPInteraction {
  const turns = conversation.turns;
  return {
    request: turns.map((t) => t.request).join('\n'),
    output: turns.map((t) => t.output).filter(Boolean).join('\n'),
    servers: conversation.servers,
    calls: turns.flatMap((t) => t.calls),
  };
}

/** JSON for objects, the text itself for strings; '' for undefined (the judge transcript's rendering). */
export { valueText };
