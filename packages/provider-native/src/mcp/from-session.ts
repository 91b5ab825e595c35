/**
 * Reading MCP interactions out of an ingested session: which tool calls were MCP calls, which servers were on
 * offer, and how the conversation splits into turns.
 */
import type { AgentCall, LLMCall, MCPServer, Session, ToolCall } from '@mce/core';
import { byStartTime } from '../metrics/deterministic/session-index.js';
import type { MCPCallRecord, MCPConversation, MCPInteraction } from './interaction.js';
import { valueText } from './interaction.js';

const unionCache = new WeakMap<Session, MCPServer[]>();

/**
 * The MCP servers an agent had (its own inventory wins), or the session's; a session without an inventory of its
 * own has the union of its agents' (first one of each name). The same array is returned for the same session, so
 * per-inventory caches hit.
 */
export function mcpServersFor(session: Session, agent?: AgentCall): MCPServer[] {
  if (agent?.mcpServers?.length) return agent.mcpServers;
  if (session.mcpServers.length || !session.agentCalls.some((a) => a.mcpServers?.length)) return session.mcpServers;
  let union = unionCache.get(session);
  if (!union) {
    const byName = new Map<string, MCPServer>();
    for (const a of session.agentCalls) for (const s of a.mcpServers ?? []) if (!byName.has(s.name)) byName.set(s.name, s);
    unionCache.set(session, (union = [...byName.values()]));
  }
  return union;
}

/** A tool call is an MCP call when ingestion marked it so, or when an available MCP server offers that tool. */
export function isMcpCall(call: ToolCall, servers: readonly MCPServer[]): boolean {
  if (call.mcp) return true;
  return servers.some((s) => s.tools.some((t) => t.name === call.toolName));
}

/** MCP `CallToolResult` reports tool failures in-band with `isError: true`. */
function inBandError(result: unknown): string | undefined {
  if (!result || typeof result !== 'object' || (result as { isError?: unknown }).isError !== true) return undefined;
  const content = (result as { content?: unknown }).content;
  if (Array.isArray(content)) {
    const text = content.map((c) => (c && typeof c === 'object' ? String((c as { text?: unknown }).text ?? '') : '')).join(' ');
    if (text.trim()) return text.trim();
  }
  return valueText(result);
}

export function mcpCallRecord(call: ToolCall): MCPCallRecord {
  const error =
    call.status === 'error' ? (call.error?.message ?? call.error?.type ?? true) : inBandError(call.result);
  return {
    ...(call.mcp?.server ? { server: call.mcp.server } : {}),
    kind: call.mcp?.kind ?? 'tool',
    name: call.toolName,
    ...(call.mcp?.uri ? { uri: call.mcp.uri } : {}),
    ...(call.arguments !== undefined ? { arguments: call.arguments } : {}),
    ...(call.result !== undefined ? { result: call.result } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

/** The MCP calls of one agent: those whose nearest enclosing agent call is it. */
/**
 * The request an agent answered: its own input; when that is the first of several user messages in its longest LLM
 * message history (an agent serving several turns), all of them.
 */
function agentRequest(session: Session, agent: AgentCall): string {
  let longest: readonly { role: string; content: string }[] = [];
  for (const l of session.llmCalls) if (l.agentCallId === agent.id && l.inputMessages.length > longest.length) longest = l.inputMessages;
  const users = longest.filter((m) => m.role === 'user' && m.content.trim()).map((m) => m.content);
  const own = agent.userInput ?? valueText(agent.input);
  return users.length > 1 && users[0] === own ? users.join('\n') : own;
}

export function agentInteraction(session: Session, agent: AgentCall): MCPInteraction {
  const servers = mcpServersFor(session, agent);
  const calls = byStartTime(session.toolCalls.filter((c) => c.agentCallId === agent.id && isMcpCall(c, servers)));
  return {
    request: agentRequest(session, agent),
    output: agent.finalResponse ?? valueText(agent.output),
    servers,
    calls: calls.map(mcpCallRecord),
  };
}

/** Last assistant text (not a tool request) among the LLM calls. */
function lastAssistantText(llmCalls: readonly LLMCall[]): string | undefined {
  for (let i = llmCalls.length - 1; i >= 0; i--) {
    const messages = llmCalls[i]?.outputMessages ?? [];
    for (let j = messages.length - 1; j >= 0; j--) {
      const m = messages[j];
      if (m && m.role === 'assistant' && m.content.trim() && !m.toolCalls?.length) return m.content;
    }
  }
  return undefined;
}

interface TurnWindow {
  request: string;
  start: number;
}

/**
 * The user turns seen by the LLM calls: the longest message history gives the user messages in order; the k-th
 * turn starts at the first LLM call whose history holds k+1 user messages (robust to repeated texts like "yes").
 */
function turnWindowsFromLlmCalls(llmCalls: readonly LLMCall[]): TurnWindow[] {
  let longest: string[] = [];
  const userCounts = llmCalls.map((c) => {
    const users = c.inputMessages.filter((m) => m.role === 'user').map((m) => m.content);
    if (users.length > longest.length) longest = users;
    return users.length;
  });
  return longest.map((request, k) => {
    const first = llmCalls.findIndex((_, i) => (userCounts[i] ?? 0) >= k + 1);
    return { request, start: llmCalls[first]?.startTime ?? -Infinity };
  });
}

const conversations = new WeakMap<Session, MCPConversation>();

/**
 * The session's conversation split into turns, with the MCP calls of each turn. Cached per session object (the
 * three MCP metrics read the same session; sessions are not modified while metrics run).
 */
export function sessionConversation(session: Session): MCPConversation {
  let conversation = conversations.get(session);
  if (!conversation) conversations.set(session, (conversation = splitConversation(session)));
  return conversation;
}

function splitConversation(session: Session): MCPConversation {
  const servers = mcpServersFor(session);
  const toolCalls = byStartTime(session.toolCalls.filter((c) => isMcpCall(c, servers)));
  const llmCalls = byStartTime(session.llmCalls);
  const windows = turnWindowsFromLlmCalls(llmCalls);
  if (windows.length > 0) {
    const turns = windows.map((w, k) => {
      const start = k === 0 ? -Infinity : w.start;
      const end = windows[k + 1]?.start ?? Infinity;
      const inside = <T extends { startTime: number }>(x: T) => x.startTime >= start && x.startTime < end;
      const last = k === windows.length - 1;
      const output = lastAssistantText(llmCalls.filter(inside)) ?? (last ? session.finalResponse : undefined) ?? '';
      return { request: w.request, output, calls: toolCalls.filter(inside).map(mcpCallRecord) };
    });
    return { servers, turns };
  }
  const masTurns = byStartTime(session.masCalls.filter((m) => m.userInput !== undefined));
  if (masTurns.length > 0) {
    return {
      servers,
      turns: masTurns.map((m, k) => {
        const end = masTurns[k + 1]?.startTime ?? Infinity;
        const start = k === 0 ? -Infinity : m.startTime;
        const calls = toolCalls.filter((c) => c.startTime >= start && c.startTime < end);
        return { request: m.userInput ?? '', output: m.finalResponse ?? '', calls: calls.map(mcpCallRecord) };
      }),
    };
  }
  return {
    servers,
    turns: [
      { request: session.userInput ?? '', output: session.finalResponse ?? '', calls: toolCalls.map(mcpCallRecord) },
    ],
  };
}
