/**
 * How a session written again (the ingester may emit one session in parts) merges with what is stored.
 * Every adapter follows these rules; the conformance suite uses `mergeSessions` as its oracle.
 */
import { CALL_LISTS, type Call, type MCPServer, type Session } from '@mce/core';

/** The session's own fields, without its element lists and MCP inventory. */
export type SessionHeader = Omit<Session, 'masCalls' | 'agentCalls' | 'taskCalls' | 'llmCalls' | 'toolCalls' | 'mcpServers'>;

export function sessionHeader(session: Session): SessionHeader {
  const { masCalls: _m, agentCalls: _a, taskCalls: _t, llmCalls: _l, toolCalls: _c, mcpServers: _s, ...header } = session;
  return header;
}

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || (typeof value === 'object' && Object.keys(value).length === 0);

/**
 * start/end = min/max, trace ids unioned (stored ones first), every other field (attributes included, as a whole)
 * keeps the stored value unless it is empty.
 */
export function mergeSessionHeader(stored: SessionHeader | undefined, incoming: SessionHeader): SessionHeader {
  if (!stored) return incoming;
  const merged: SessionHeader = {
    ...incoming,
    ...Object.fromEntries(Object.entries(stored).filter(([, v]) => !isEmpty(v))),
    kind: 'Session',
    id: stored.id,
    startTime: Math.min(stored.startTime, incoming.startTime),
    endTime: Math.max(stored.endTime, incoming.endTime),
    traceIds: [...new Set([...stored.traceIds, ...incoming.traceIds])],
  };
  return merged;
}

/** Upsert by key: a stored element keeps its position and takes the incoming value; new ones are appended. */
function upsertBy<T>(stored: readonly T[], incoming: readonly T[], key: (item: T) => string): T[] {
  const result = [...stored];
  const index = new Map(result.map((item, i) => [key(item), i]));
  for (const item of incoming) {
    const at = index.get(key(item));
    if (at === undefined) {
      index.set(key(item), result.length);
      result.push(item);
    } else result[at] = item;
  }
  return result;
}

const byId = (call: Call) => call.id;
const byName = (server: MCPServer) => server.name;

/**
 * A call id is one call of the session whatever its class: a call written again as another class (the span read
 * again by a dialect that now knows its operation) leaves its old class's list, as the stores key calls by id.
 */
export function mergeSessions(stored: Session | undefined, incoming: Session): Session {
  if (!stored) return incoming;
  const merged = (list: CallList) => {
    const others = new Set(CALL_LIST_NAMES.filter((l) => l !== list).flatMap((l) => (incoming[l] as Call[]).map(byId)));
    const kept = others.size === 0 ? stored[list] : (stored[list] as Call[]).filter((call) => !others.has(call.id));
    return upsertBy(kept as Call[], incoming[list] as Call[], byId);
  };
  return {
    ...mergeSessionHeader(sessionHeader(stored), sessionHeader(incoming)),
    masCalls: merged('masCalls') as Session['masCalls'],
    agentCalls: merged('agentCalls') as Session['agentCalls'],
    taskCalls: merged('taskCalls') as Session['taskCalls'],
    llmCalls: merged('llmCalls') as Session['llmCalls'],
    toolCalls: merged('toolCalls') as Session['toolCalls'],
    mcpServers: upsertBy(stored.mcpServers, incoming.mcpServers, byName),
  };
}

type CallList = (typeof CALL_LISTS)[keyof typeof CALL_LISTS];
const CALL_LIST_NAMES = Object.values(CALL_LISTS) as CallList[];

/** One entry per session id, parts of the same session merged in order (a batch may hold several parts). */
export function coalesceSessions(sessions: readonly Session[]): Session[] {
  const byKey = new Map<string, Session>();
  for (const session of sessions) byKey.set(session.id, mergeSessions(byKey.get(session.id), session));
  return [...byKey.values()];
}
