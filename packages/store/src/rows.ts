/**
 * The table form of a session shared by the SQL adapters (and the Neo4j node properties): one row per session
 * header, one row per call (queryable columns + the whole call as JSON), one row per MCP server of the inventory.
 * Reading a session back is one JSON.parse per call, which keeps a 10k-span read fast.
 */
import { allCalls, CALL_LISTS, type Call, type CallLevel, type MCPServer, type Session } from '@mce/core';
import type { ListSessionsOptions, SessionCounts } from './types.js';
import type { SessionHeader } from '@mce/ingest';

// The stores read it from here beside the row helpers; it lives in core, with the session's other helpers.
export { allCalls };

export interface CallRow {
  sessionId: string;
  id: string;
  kind: CallLevel;
  /** Position in the session, so a session reads back in the order it was written. */
  seq: number;
  name: string;
  traceId: string | null;
  parentId: string | null;
  startTime: number;
  endTime: number;
  status: string;
  payload: string;
}

export interface ServerRow {
  sessionId: string;
  name: string;
  seq: number;
  transport: string | null;
  payload: string;
}

export interface HeaderRow {
  id: string;
  startTime: number;
  endTime: number;
  serviceName: string | null;
  appName: string | null;
  traceIds: string[];
  userInput: string | null;
  finalResponse: string | null;
  attributes: string | null;
}

/**
 * One row per call id (an id repeated within the session keeps its first position and takes its last value,
 * as an upsert would: a single INSERT … ON CONFLICT may not touch a row twice).
 */
export function callRows(session: Session, firstSeq: number): CallRow[] {
  return uniqueBy(
    allCalls(session).map((call, i) => ({
      sessionId: session.id,
      id: call.id,
      kind: call.kind,
      seq: firstSeq + i,
      name: call.name,
      traceId: call.traceId ?? null,
      parentId: call.parentId ?? null,
      startTime: call.startTime,
      endTime: call.endTime,
      status: call.status,
      payload: JSON.stringify(call),
    })),
    (row) => row.id,
  );
}

export function serverRows(session: Session, firstSeq: number): ServerRow[] {
  return uniqueBy(
    session.mcpServers.map((server, i) => ({
      sessionId: session.id,
      name: server.name,
      seq: firstSeq + i,
      transport: server.transport ?? null,
      payload: JSON.stringify(server),
    })),
    (row) => row.name,
  );
}

function uniqueBy<T extends { seq: number }>(rows: T[], key: (row: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const row of rows) {
    const first = byKey.get(key(row));
    byKey.set(key(row), first ? { ...row, seq: first.seq } : row);
  }
  return byKey.size === rows.length ? rows : [...byKey.values()];
}

export function headerRow(header: SessionHeader): HeaderRow {
  return {
    id: header.id,
    startTime: header.startTime,
    endTime: header.endTime,
    serviceName: header.serviceName ?? null,
    appName: header.appName ?? null,
    traceIds: header.traceIds,
    userInput: header.userInput ?? null,
    finalResponse: header.finalResponse ?? null,
    attributes: header.attributes === undefined ? null : JSON.stringify(header.attributes),
  };
}

/** Drop absent (null) columns so a read-back object has exactly the keys that were written. */
function present<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as T;
}

export function headerFromRow(row: HeaderRow): SessionHeader {
  return present({
    kind: 'Session' as const,
    id: row.id,
    startTime: row.startTime,
    endTime: row.endTime,
    serviceName: row.serviceName ?? undefined,
    appName: row.appName ?? undefined,
    traceIds: row.traceIds,
    userInput: row.userInput ?? undefined,
    finalResponse: row.finalResponse ?? undefined,
    attributes: row.attributes === null ? undefined : (JSON.parse(row.attributes) as Record<string, unknown>),
  });
}

/** Assemble a session from its header and its call / server payloads (already in `seq` order). */
export function assembleSession(header: SessionHeader, callPayloads: Iterable<string>, serverPayloads: Iterable<string>): Session {
  const session: Session = {
    ...header,
    masCalls: [],
    agentCalls: [],
    taskCalls: [],
    llmCalls: [],
    toolCalls: [],
    mcpServers: [...serverPayloads].map((p) => JSON.parse(p) as MCPServer),
  };
  for (const payload of callPayloads) {
    const call = JSON.parse(payload) as Call;
    listFor(session, call.kind).push(call);
  }
  return session;
}

/** The session's list of calls of `kind`. */
export function listFor(session: Session, kind: CallLevel): Call[] {
  return session[CALL_LISTS[kind]] as Call[];
}

/** `items` in consecutive pieces of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Counts from `kind → number` pairs (a Neo4j listing counts them per kind; `countsAfterWrite` tallies a write). */
export function countsFrom(pairs: Iterable<{ kind: string; n: number }>, mcpServers: number): SessionCounts {
  const counts: SessionCounts = { masCalls: 0, agentCalls: 0, taskCalls: 0, llmCalls: 0, toolCalls: 0, mcpServers };
  for (const { kind, n } of pairs) {
    const key = CALL_LISTS[kind as CallLevel];
    if (key) counts[key] = n;
  }
  return counts;
}

/** `from` / `to` of a listing as epoch ms: a number, a Date, an ISO time or a string of digits (epoch ms). */
export function toEpochMs(value: number | Date | string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value);
  // An ISO date-time without a zone is UTC, as the date-only form is and as every listing shows times (Date.parse
  // would read it in the machine's local zone).
  const text = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value.trim()) ? `${value.trim()}Z` : value;
  const ms = text instanceof Date ? text.getTime() : Date.parse(text);
  if (!Number.isFinite(ms)) throw new Error(`not a time: ${String(value)}`);
  return ms;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A time a user typed (a `--from` option, a query parameter): epoch milliseconds or ISO 8601, a time without a zone
 * being UTC. Anything else throws: `Date.parse` would also take "Jan 1 2026" and read it in the machine's zone.
 */
export function parseTimeText(value: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!ISO_TIME.test(text)) throw new Error(`not a time: ${value}`);
  return toEpochMs(text.toUpperCase().replace(' ', 'T'));
}

/**
 * The WHERE clause and values of a session listing's filters (both SQL stores), with the store's placeholder for the
 * n-th value (`?` in SQLite, `$n` in PostgreSQL).
 */
export function sessionFilter(options: ListSessionsOptions, placeholder: (n: number) => string): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const filter = (column: string, op: string, value: unknown) => {
    params.push(value);
    clauses.push(`${column} ${op} ${placeholder(params.length)}`);
  };
  if (options.from !== undefined) filter('start_time', '>=', toEpochMs(options.from));
  if (options.to !== undefined) filter('start_time', '<=', toEpochMs(options.to));
  if (options.serviceName !== undefined) filter('service_name', '=', options.serviceName);
  if (options.appName !== undefined) filter('app_name', '=', options.appName);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
