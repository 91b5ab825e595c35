/**
 * Every Cypher statement the Neo4j store sends. Labels are the ontology class names; every call node also carries
 * the `Call` label (one uniqueness constraint on `(sessionId, id)` covers all call classes and lets `CHILD_OF`
 * find a parent of any class). Relations:
 *   (Session)-[:HAS_CALL]->(MASCall|AgentCall|TaskCall|LLMCall|ToolCall)
 *   (call)-[:CHILD_OF]->(parent call)          (span parent, when the parent is in the session)
 *   (Session)-[:HAS_MCP_SERVER]->(MCPServer)
 *   (MetricResult)-[:ofMetricType]->(Metric)
 *   (MetricResult)-[:measures]->(Session or call)
 */
import { CALL_LISTS, type CallLevel } from '@mce/core';
import type { PlannedResultQuery } from '@mce/store/adapter';

/** Version of the graph schema below; stored on the `(:MceSchema {id: 'mce'})` node. 2: the computedAt index. */
export const NEO4J_SCHEMA_VERSION = 2;

/** Constraints and indexes, one statement each (schema statements cannot share a transaction with writes). */
export const SCHEMA_STATEMENTS: readonly string[] = [
  'CREATE CONSTRAINT mce_session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE',
  'CREATE CONSTRAINT mce_call_key IF NOT EXISTS FOR (c:Call) REQUIRE (c.sessionId, c.id) IS UNIQUE',
  'CREATE CONSTRAINT mce_mcp_server_key IF NOT EXISTS FOR (m:MCPServer) REQUIRE (m.sessionId, m.name) IS UNIQUE',
  'CREATE CONSTRAINT mce_metric_id IF NOT EXISTS FOR (m:Metric) REQUIRE m.id IS UNIQUE',
  'CREATE CONSTRAINT mce_metric_result_id IF NOT EXISTS FOR (r:MetricResult) REQUIRE r.id IS UNIQUE',
  'CREATE INDEX mce_session_start IF NOT EXISTS FOR (s:Session) ON (s.startTime)',
  'CREATE INDEX mce_metric_result_session IF NOT EXISTS FOR (r:MetricResult) ON (r.sessionId)',
  // Results across sessions, newest first (queryResults): a range index gives them in computedAt order.
  'CREATE INDEX mce_metric_result_computed IF NOT EXISTS FOR (r:MetricResult) ON (r.computedAt)',
  // A MERGE is only safe between concurrent processes on a key a constraint guards.
  'CREATE CONSTRAINT mce_schema_id IF NOT EXISTS FOR (v:MceSchema) REQUIRE v.id IS UNIQUE',
];

/** Records the schema version; an older process starting after a newer one does not lower it. */
export const RECORD_SCHEMA_VERSION = `MERGE (v:MceSchema {id: 'mce'})
SET v.version = CASE WHEN coalesce(v.version, 0) < $version THEN $version ELSE v.version END`;

/**
 * Lock (and create when new) the batch's Session nodes, in id order, and return what is stored: the header and
 * the next free position of calls and servers. A node created here has no startTime yet: it is new.
 */
export const LOCK_AND_READ_SESSIONS = `UNWIND $ids AS id
MERGE (s:Session {id: id})
SET s.id = id
WITH s
OPTIONAL MATCH (s)-[:HAS_CALL]->(c)
WITH s, max(c.seq) AS lastCall
OPTIONAL MATCH (s)-[:HAS_MCP_SERVER]->(m)
RETURN properties(s) AS session, lastCall, max(m.seq) AS lastServer`;

export const WRITE_SESSION_HEADERS = `UNWIND $rows AS row
MATCH (s:Session {id: row.id})
SET s = row`;

/**
 * Upsert calls of one class; a stored call keeps its position (`seq`). A call written again as another class loses
 * its old class label, and one written under another parent (or none) loses its old `CHILD_OF` (LINK_PARENTS links
 * the new one).
 */
export function writeCalls(kind: CallLevel): string {
  const others = (Object.keys(CALL_LISTS) as CallLevel[]).filter((level) => level !== kind);
  return `UNWIND $rows AS row
MATCH (s:Session {id: row.sessionId})
MERGE (c:Call {sessionId: row.sessionId, id: row.id})
WITH s, c, row, coalesce(c.seq, row.seq) AS seq
SET c = row, c.seq = seq, c:${kind}
REMOVE c:${others.join(':')}
MERGE (s)-[:HAS_CALL]->(c)
WITH c, row
OPTIONAL MATCH (c)-[stale:CHILD_OF]->(p)
WHERE row.parentId IS NULL OR p.id <> row.parentId
DELETE stale`;
}

export const WRITE_SERVERS = `UNWIND $rows AS row
MATCH (s:Session {id: row.sessionId})
MERGE (m:MCPServer {sessionId: row.sessionId, name: row.name})
WITH s, m, row, coalesce(m.seq, row.seq) AS seq
SET m = row, m.seq = seq
MERGE (s)-[:HAS_MCP_SERVER]->(m)`;

/** Link calls to their span parent once both are stored (a parent may arrive in a later part). */
export const LINK_PARENTS = `UNWIND $ids AS sessionId
MATCH (:Session {id: sessionId})-[:HAS_CALL]->(c)
WHERE c.parentId IS NOT NULL AND NOT (c)-[:CHILD_OF]->()
MATCH (p:Call {sessionId: sessionId, id: c.parentId})
MERGE (c)-[:CHILD_OF]->(p)`;

/** The calls of stored sessions (a part written over them is reconciled with these), each session's in order. */
export const READ_STORED_CALLS = `UNWIND $ids AS id
MATCH (:Session {id: id})-[:HAS_CALL]->(c)
RETURN id AS sessionId, c.payload AS payload ORDER BY id, c.seq`;

/**
 * Calls a part's reconciliation removed (an implicit MAS call replaced by an explicit one, an inner span's call folded
 * into its outer span's), with their relations and the results that measured them (the session no longer has what
 * they measured).
 */
export const DELETE_CALLS = `UNWIND $rows AS row
MATCH (c:Call {sessionId: row.sessionId, id: row.id})
OPTIONAL MATCH (r:MetricResult)-[:measures]->(c)
DETACH DELETE r, c`;

export const READ_SESSION = `MATCH (s:Session {id: $id}) WHERE s.startTime IS NOT NULL RETURN properties(s) AS session`;
export const READ_CALLS = `MATCH (:Session {id: $id})-[:HAS_CALL]->(c) RETURN c.payload AS payload ORDER BY c.seq`;
export const READ_SERVERS = `MATCH (:Session {id: $id})-[:HAS_MCP_SERVER]->(m) RETURN m.payload AS payload ORDER BY m.seq`;

/** The stored sessions a listing's filters keep, newest first, paged. */
function listedSessions(hasLimit: boolean): string {
  return `MATCH (s:Session)
WHERE s.startTime IS NOT NULL
  AND ($from IS NULL OR s.startTime >= $from) AND ($to IS NULL OR s.startTime <= $to)
  AND ($serviceName IS NULL OR s.serviceName = $serviceName) AND ($appName IS NULL OR s.appName = $appName)
WITH s ORDER BY s.startTime DESC, s.id SKIP $offset${hasLimit ? ' LIMIT $limit' : ''}`;
}

export function listSessionIds(hasLimit: boolean): string {
  return `${listedSessions(hasLimit)}
RETURN s.id AS id, s.startTime AS startTime
ORDER BY startTime DESC, id`;
}

export function listSessions(hasLimit: boolean): string {
  return `${listedSessions(hasLimit)}
OPTIONAL MATCH (s)-[:HAS_CALL]->(c)
WITH s, c.kind AS kind, count(c) AS n
WITH s, collect({kind: kind, n: n}) AS kinds
RETURN s.id AS id, s.startTime AS startTime, s.endTime AS endTime, s.serviceName AS serviceName,
  s.appName AS appName, kinds, size([(s)-[:HAS_MCP_SERVER]->() | 1]) AS servers
ORDER BY startTime DESC, id`;
}

export const SESSIONS_EXIST = `MATCH (s:Session) WHERE s.id IN $ids AND s.startTime IS NOT NULL RETURN s.id AS id`;

/**
 * The sessions of `$ids` with a write lock taken on each node until the transaction ends (setting a property is how
 * Cypher takes one): a result write and a deletion of the same session come one after the other. `stored` is false
 * for a node without a header.
 */
export const LOCK_SESSIONS = `MATCH (s:Session) WHERE s.id IN $ids
SET s.mceLock = true REMOVE s.mceLock
RETURN s.id AS id, s.startTime IS NOT NULL AS stored`;

export const KNOWN_METRICS = `MATCH (m:Metric) WHERE m.id IN $ids RETURN m.id AS id`;

/**
 * Only new or changed definitions are written: every result batch sends its definitions, and a SET on an unchanged
 * Metric node would still take its write lock, queueing concurrent workers behind one another (and deadlocking
 * writers that list them in other orders). Reading first takes no write lock.
 */
export const WRITE_METRICS = `UNWIND $rows AS row
OPTIONAL MATCH (stored:Metric {id: row.id})
WITH row, stored
WHERE stored IS NULL OR properties(stored) <> row
MERGE (m:Metric {id: row.id})
SET m = row`;

/** A rewritten result may point elsewhere: drop its old relations before linking again. */
export const UNLINK_RESULTS = `UNWIND $ids AS id
MATCH (:MetricResult {id: id})-[old:ofMetricType|measures]->()
DELETE old`;

export const DELETE_RESULTS = `UNWIND $rows AS row
MATCH (r:MetricResult {id: row.id, sessionId: row.sessionId})
DETACH DELETE r
RETURN count(*) AS removed`;

export const WRITE_RESULTS = `UNWIND $rows AS row
MERGE (r:MetricResult {id: row.id})
SET r = row
WITH r, row
MATCH (m:Metric {id: row.ofMetricType})
MERGE (r)-[:ofMetricType]->(m)
WITH r, row
OPTIONAL MATCH (call:Call {sessionId: row.sessionId, id: row.measuresId}) WHERE row.measuresLevel <> 'Session'
OPTIONAL MATCH (session:Session {id: row.measuresId}) WHERE row.measuresLevel = 'Session'
WITH r, coalesce(call, session) AS target
FOREACH (t IN CASE WHEN target IS NULL THEN [] ELSE [target] END | MERGE (r)-[:measures]->(t))`;

export const READ_RESULTS = `MATCH (r:MetricResult)-[:ofMetricType]->(m:Metric)
WHERE r.sessionId = $sessionId
  AND ($recursive OR (r.measuresLevel = 'Session' AND r.measuresId = $sessionId))
  AND ($names IS NULL OR r.name IN $names)
WITH r, m ORDER BY r.computedAt DESC, r.id
RETURN properties(r) AS result, properties(m) AS metric`;

/**
 * The results a query across sessions matches, `r` with its Metric `m`. Only the filters the query gives are written
 * (each filter shape its own statement), so the planner can seek the index a filter has: `sessionId` for sessions,
 * else `computedAt`, which also gives the order of `queryResults` (hence the `IS NOT NULL` when no time bound is given).
 */
function matchResults(plan: PlannedResultQuery): string {
  const where: string[] = [];
  if (plan.from !== undefined) where.push('r.computedAt >= $from');
  if (plan.to !== undefined) where.push('r.computedAt <= $to');
  if (plan.after) where.push('r.computedAt <= $afterAt AND (r.computedAt < $afterAt OR r.id > $afterId)');
  if (plan.sessionIds) where.push('r.sessionId IN $sessionIds');
  else if (where.length === 0) where.push('r.computedAt IS NOT NULL');
  if (plan.metrics) {
    const either = [
      ...(plan.metrics.names.length > 0 ? ['r.name IN $names'] : []),
      ...(plan.metrics.metricIds.length > 0 ? ['r.ofMetricType IN $metricIds'] : []),
    ];
    where.push(either.length === 1 ? either[0]! : `(${either.join(' OR ')})`);
  }
  if (plan.levels) where.push('r.measuresLevel IN $levels');
  if (plan.min !== undefined) where.push('r.result >= $min');
  if (plan.max !== undefined) where.push('r.result <= $max');
  return `MATCH (r:MetricResult)-[:ofMetricType]->(m:Metric)
WHERE ${where.join('\n  AND ')}`;
}

/** Results across sessions (`queryMetricResults`), newest first, paged. */
export function queryResults(plan: PlannedResultQuery): string {
  return `${matchResults(plan)}
WITH r, m ORDER BY r.computedAt DESC, r.id SKIP $offset${plan.limit !== undefined ? ' LIMIT $limit' : ''}
RETURN properties(r) AS result, properties(m) AS metric`;
}

/**
 * The summary of the results a query matches (`summarizeMetricResults`), one row per Metric and level; percentileDisc
 * is the nearest-rank percentile of the SQL stores (see result-summary.ts). Aliases in backquotes: some are function names.
 */
export function summarizeResults(plan: PlannedResultQuery): string {
  return `${matchResults(plan)}
WITH m, r.measuresLevel AS level, count(r) AS \`count\`, avg(r.result) AS mean, min(r.result) AS \`min\`, max(r.result) AS \`max\`,
  percentileDisc(r.result, 0.5) AS p50, percentileDisc(r.result, 0.9) AS p90, percentileDisc(r.result, 0.95) AS p95,
  count(DISTINCT r.sessionId) AS sessions, min(r.computedAt) AS \`first\`, max(r.computedAt) AS \`last\`
RETURN properties(m) AS metric, level, \`count\`, mean, \`min\`, \`max\`, p50, p90, p95, sessions, \`first\`, \`last\``;
}

/** Every result stored under the sessions' ids (those measuring a session or its calls). */
export const DELETE_SESSION_RESULTS = `UNWIND $ids AS id
MATCH (r:MetricResult {sessionId: id})
DETACH DELETE r`;

/** The calls and MCP servers of the sessions, with their relations. */
export const DELETE_SESSION_ELEMENTS = `UNWIND $ids AS id
MATCH (:Session {id: id})-[:HAS_CALL|HAS_MCP_SERVER]->(e)
DETACH DELETE e`;

/** The Session nodes; `stored` is false for a node without a header (none is left by a committed write). */
export const DELETE_SESSION_NODES = `UNWIND $ids AS id
MATCH (s:Session {id: id})
WITH id, s, s.startTime IS NOT NULL AS stored
DETACH DELETE s
RETURN id, stored`;
