/**
 * A session's element counts as its rows hold them after a write. The SQL stores keep them in the session's row, so a
 * listing reads them instead of counting a session's calls (100,000 calls took about 5 ms of SQLite per listed
 * session). They are counted from the write itself: the stored calls by id, less the removed ones, with the written
 * rows (a call written again under another kind moves to it); the stored MCP server names with the written ones.
 */
import { allCalls, type CallLevel, type Session } from '@mce/core';
import { countsFrom, type CallRow, type ServerRow } from './rows.js';
import type { SessionCounts } from './types.js';

export interface WrittenRows {
  /** Ids of stored calls the write removes (before its rows are upserted). */
  removed: readonly string[];
  calls: readonly Pick<CallRow, 'id' | 'kind'>[];
  servers: readonly Pick<ServerRow, 'name'>[];
}

/** `stored`: the stored session (its calls; undefined for a new one) and the names of its stored MCP servers. */
export function countsAfterWrite(stored: Session | undefined, storedServers: Iterable<string>, written: WrittenRows): SessionCounts {
  const kinds = new Map<string, CallLevel>(stored ? allCalls(stored).map((call) => [call.id, call.kind]) : []);
  for (const id of written.removed) kinds.delete(id);
  for (const row of written.calls) kinds.set(row.id, row.kind);
  const servers = new Set(storedServers);
  for (const row of written.servers) servers.add(row.name);
  const perKind = new Map<string, number>();
  for (const kind of kinds.values()) perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
  return countsFrom([...perKind].map(([kind, n]) => ({ kind, n })), servers.size);
}

/** The counts' keys in the order of the columns `mas_call_count, …, mcp_server_count`. */
export const COUNT_KEYS = ['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls', 'mcpServers'] as const satisfies readonly (keyof SessionCounts)[];

/** The counts' columns of the sessions table (both SQL stores), each named as its `SessionCounts` key. */
export const COUNTS_SELECT = `mas_call_count AS "masCalls", agent_call_count AS "agentCalls", task_call_count AS "taskCalls",
  llm_call_count AS "llmCalls", tool_call_count AS "toolCalls", mcp_server_count AS "mcpServers"`;

/** The counts of a row read with `COUNTS_SELECT`. */
export function countsFromRow(row: Record<string, unknown>): SessionCounts {
  return Object.fromEntries(COUNT_KEYS.map((key) => [key, Number(row[key])])) as unknown as SessionCounts;
}

/** The counts in the order of the columns `mas_call_count, …, mcp_server_count`. */
export function countValues(counts: SessionCounts): number[] {
  return COUNT_KEYS.map((key) => counts[key]);
}
