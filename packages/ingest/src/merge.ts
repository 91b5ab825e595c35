/**
 * How a session written again (the ingester may emit one session in parts) merges with what is stored.
 * Every adapter follows these rules; the conformance suite uses `mergeSessions` as its oracle. A part is first
 * reconciled with the stored session (`parts.ts`: implicit MAS calls, parent links across parts), then upserted.
 */
import { allCalls, type Call, type MCPServer, type Session } from '@mce/core';
import { reconcilePart } from './parts.js';

/** The session's own fields, without its element lists and MCP inventory. */
export type SessionHeader = Omit<Session, 'masCalls' | 'agentCalls' | 'taskCalls' | 'llmCalls' | 'toolCalls' | 'mcpServers'>;

export function sessionHeader(session: Session): SessionHeader {
  const { masCalls: _m, agentCalls: _a, taskCalls: _t, llmCalls: _l, toolCalls: _c, mcpServers: _s, ...header } = session;
  return header;
}

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || (typeof value === 'object' && Object.keys(value).length === 0);

/**
 * start/end = min/max, trace ids unioned (stored ones first); the user input is the one of the part that starts first
 * and the final response the one of the part that ends last (whichever was written first), when that part has one;
 * every other field (attributes included, as a whole) keeps the stored value unless it is empty. (`planSessionWrite`
 * may then set the times, user input and final response from the calls of both parts: see parts.ts.)
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
  const userInput = firstOf(incoming.startTime < stored.startTime ? [incoming, stored] : [stored, incoming], 'userInput');
  const finalResponse = firstOf(incoming.endTime > stored.endTime ? [incoming, stored] : [stored, incoming], 'finalResponse');
  if (userInput !== undefined) merged.userInput = userInput;
  if (finalResponse !== undefined) merged.finalResponse = finalResponse;
  return merged;
}

/** The first non-empty `field` of the parts, in the order given. */
function firstOf(parts: readonly SessionHeader[], field: 'userInput' | 'finalResponse'): string | undefined {
  return parts.map((p) => p[field]).find((v) => !isEmpty(v));
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

const byName = (server: MCPServer) => server.name;

/** What writing a session over the stored one does: the header to store, the calls to upsert, the calls to remove. */
export interface SessionWrite {
  header: SessionHeader;
  /** Upserted as written (calls by id, MCP servers by name): the incoming part reconciled, and stored calls it changed. */
  session: Session;
  /** Ids of stored calls to remove. */
  removed: string[];
}

/**
 * The write of `incoming` over `stored` (undefined: a new session). Adapters run it with the stored session's header
 * and calls (its MCP servers are not needed), inside the transaction of the write.
 */
export function planSessionWrite(stored: Session | undefined, incoming: Session): SessionWrite {
  if (!stored) return { header: sessionHeader(incoming), session: incoming, removed: [] };
  const part = reconcilePart(stored, incoming);
  const header = { ...mergeSessionHeader(sessionHeader(stored), sessionHeader(incoming)), ...part.header };
  return { header, session: part.session, removed: part.removed };
}

/**
 * A call id is one call of the session whatever its class: a call written again as another class (the span read
 * again by a dialect that now knows its operation) leaves its old class's list. Positions are the stores' `seq`:
 * the stored calls in their order (all classes, `allCalls` order), then the calls new to the session in the incoming
 * order; a call written again keeps its position and takes its last value. The incoming part is reconciled with the
 * stored session first (`planSessionWrite`): it may change stored calls' links and remove stored implicit MAS calls.
 */
export function mergeSessions(stored: Session | undefined, incoming: Session): Session {
  if (!stored) return incoming;
  const write = planSessionWrite(stored, incoming);
  return applySessionWrite(stored, write);
}

function applySessionWrite(stored: Session, { header, session: incoming, removed }: SessionWrite): Session {
  const gone = new Set(removed);
  const keep = <T extends Call>(list: readonly T[]) => (gone.size === 0 ? list : list.filter((call) => !gone.has(call.id)));
  const storedCalls = keep(allCalls(stored));
  const position = new Map<string, number>();
  for (const call of [...storedCalls, ...allCalls(incoming)]) if (!position.has(call.id)) position.set(call.id, position.size);
  const incomingKind = new Map(allCalls(incoming).map((call) => [call.id, call.kind]));
  const merged = <T extends Call>(storedList: readonly T[], incomingList: readonly T[]): T[] => {
    const kept = new Map<string, T>();
    for (const call of keep(storedList)) if ((incomingKind.get(call.id) ?? call.kind) === call.kind) kept.set(call.id, call);
    for (const call of incomingList) kept.set(call.id, call);
    return [...kept.values()].sort((a, b) => (position.get(a.id) as number) - (position.get(b.id) as number));
  };
  return {
    ...header,
    masCalls: merged(stored.masCalls, incoming.masCalls),
    agentCalls: merged(stored.agentCalls, incoming.agentCalls),
    taskCalls: merged(stored.taskCalls, incoming.taskCalls),
    llmCalls: merged(stored.llmCalls, incoming.llmCalls),
    toolCalls: merged(stored.toolCalls, incoming.toolCalls),
    mcpServers: upsertBy(stored.mcpServers, incoming.mcpServers, byName),
  };
}

/** One entry per session id, parts of the same session merged in order (a batch may hold several parts). */
export function coalesceSessions(sessions: readonly Session[]): Session[] {
  const byKey = new Map<string, Session>();
  for (const session of sessions) byKey.set(session.id, mergeSessions(byKey.get(session.id), session));
  return [...byKey.values()];
}
