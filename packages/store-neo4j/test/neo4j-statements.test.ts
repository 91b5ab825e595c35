/**
 * The Neo4j adapter checked through what it sends: statements, parameters (Neo4j Integers, JSON strings),
 * UNWIND batch sizes, and sessions always closed. (A live server runs the conformance suite: neo4j.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import neo4j from 'neo4j-driver';
import type { Session } from '@mce/core';
import { Neo4jStore } from '../src/index.js';
import { nearestRank, PERCENTILES } from '@mce/store/adapter';
import { RecordingDriver, type Responder } from './recording-driver.js';
import { bareSession, DEFINITIONS, metricResult, nestedInParts, richSession, toolCall, tripInParts } from '@mce/store/conformance';

const quiet = { warn: () => undefined };
const LOCK = 'MATCH (s:Session) WHERE s.id IN $ids\nSET s.mceLock = true';
/** Unless a test answers it, the session lock finds every session asked for stored. */
const open = (respond: Responder = () => [], batchSize?: number) => {
  const driver = new RecordingDriver((cypher, params) => {
    const rows = respond(cypher, params);
    return rows.length === 0 && cypher.startsWith(LOCK) ? (params.ids as string[]).map((id) => ({ id, stored: true })) : rows;
  });
  const store = new Neo4jStore({ url: 'bolt://graph.invalid:7687', database: 'kg' }, { driver, batchSize, logger: quiet });
  return { driver, store };
};
const isInt = (v: unknown, n: number) => neo4j.isInt(v) && (v as { toNumber(): number }).toNumber() === n;
/** Property values Neo4j can store: scalars, Integers and lists of strings — never a nested map. */
const storable = (v: unknown) =>
  ['string', 'number', 'boolean'].includes(typeof v) || neo4j.isInt(v) || (Array.isArray(v) && v.every((x) => typeof x === 'string'));

describe('Neo4j store statements', () => {
  it('creates the uniqueness constraints, one schema statement per transaction, in database "kg"', async () => {
    const { driver, store } = open();
    await store.init();
    expect(driver.runs.map((r) => r.cypher)).toEqual([
      'CREATE CONSTRAINT mce_session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE',
      'CREATE CONSTRAINT mce_call_key IF NOT EXISTS FOR (c:Call) REQUIRE (c.sessionId, c.id) IS UNIQUE',
      'CREATE CONSTRAINT mce_mcp_server_key IF NOT EXISTS FOR (m:MCPServer) REQUIRE (m.sessionId, m.name) IS UNIQUE',
      'CREATE CONSTRAINT mce_metric_id IF NOT EXISTS FOR (m:Metric) REQUIRE m.id IS UNIQUE',
      'CREATE CONSTRAINT mce_metric_result_id IF NOT EXISTS FOR (r:MetricResult) REQUIRE r.id IS UNIQUE',
      'CREATE INDEX mce_session_start IF NOT EXISTS FOR (s:Session) ON (s.startTime)',
      'CREATE INDEX mce_metric_result_session IF NOT EXISTS FOR (r:MetricResult) ON (r.sessionId)',
      'CREATE INDEX mce_metric_result_computed IF NOT EXISTS FOR (r:MetricResult) ON (r.computedAt)',
      'CREATE CONSTRAINT mce_schema_id IF NOT EXISTS FOR (v:MceSchema) REQUIRE v.id IS UNIQUE',
      "MERGE (v:MceSchema {id: 'mce'})\nSET v.version = CASE WHEN coalesce(v.version, 0) < $version THEN $version ELSE v.version END",
    ]);
    expect(new Set(driver.runs.map((r) => r.session)).size).toBe(10);
    expect(isInt(driver.runs[9]?.params.version, 2)).toBe(true);
    expect(driver.opened).toBe(10);
    expect(driver.closed).toBe(10);
    expect(driver.databases).toEqual(Array(10).fill('kg'));
    // One bookmark manager for every session of the store: a read follows the store's own writes on a cluster.
    expect(new Set(driver.bookmarkManagers).size).toBe(1);
    expect(driver.bookmarkManagers[0]).toBeDefined();
  });

  it('checks that the server is there before anything else, and fails at once when it is not', async () => {
    const { driver, store } = open();
    await store.init();
    expect(driver.verified).toEqual(['kg']);
    const down = open();
    down.driver.unreachable = new Error('Could not perform discovery. No routing servers available.');
    await expect(down.store.init()).rejects.toThrow('No routing servers available');
    expect(down.driver.runs).toEqual([]);
  });

  it('writes a session as labelled nodes with scalar properties, JSON payloads and Integer positions', async () => {
    const { driver, store } = open();
    const session = richSession('s1', 1000);
    await store.writeSessions([session]);
    expect(driver.opened).toBe(1);
    expect(driver.closed).toBe(1);
    expect(driver.runs.every((r) => r.mode === 'write' && r.session === 1)).toBe(true);

    const [lock] = driver.find('MERGE (s:Session {id: id})');
    expect(lock?.params).toEqual({ ids: ['s1'] });

    const [header] = driver.find('SET s = row');
    expect(header?.params.rows).toEqual([
      {
        id: 's1',
        startTime: 1000,
        endTime: 6000.25,
        serviceName: 'travel-service',
        appName: 'travel-app',
        traceIds: ['s1-trace-1', 's1-trace-2'],
        userInput: 'Weather in Paris?',
        finalResponse: 'Sunny, 21°C',
        attributes: '{"service.version":"1.2.3","tenant":{"id":7}}',
      },
    ]);

    const [llm] = driver.find('seq, c:LLMCall');
    const llmRows = llm?.params.rows as Record<string, unknown>[];
    expect(llmRows).toHaveLength(1);
    const row = llmRows[0]!;
    expect(Object.values(row).every(storable)).toBe(true);
    expect(isInt(row.seq, 3)).toBe(true); // mas, agent, task, llm, tool: the LLM call is 4th
    expect(row).toMatchObject({
      sessionId: 's1',
      id: 's1-llm',
      kind: 'LLMCall',
      name: 'chat gpt-4o',
      requestModel: 'gpt-4o',
      responseModel: 'gpt-4o-2024-08-06',
      provider: 'openai',
      operation: 'chat',
      startTime: 1030.000001,
      parentId: 's1-task',
    });
    expect(JSON.parse(row.payload as string)).toEqual(session.llmCalls[0]);
    expect(row).not.toHaveProperty('usage');

    // Scalars become properties, content (input/output/arguments/result) stays in the payload only.
    const [mas] = driver.find('seq, c:MASCall');
    const masRow = (mas?.params.rows as Record<string, unknown>[])[0]!;
    expect(Object.keys(masRow).sort()).toEqual(
      ['endTime', 'finalResponse', 'id', 'kind', 'name', 'payload', 'seq', 'sessionId', 'startTime', 'status', 'traceId', 'userInput', 'workflowName'],
    );
    expect(isInt(masRow.seq, 0)).toBe(true);

    for (const kind of ['MASCall', 'AgentCall', 'TaskCall', 'ToolCall']) {
      const [run] = driver.find(`seq, c:${kind}`);
      expect((run?.params.rows as unknown[]).length).toBe(1);
    }
    const [servers] = driver.find('MERGE (m:MCPServer');
    const serverRows = servers?.params.rows as Record<string, unknown>[];
    expect(serverRows.map((r) => [r.name, (r.seq as { toNumber(): number }).toNumber(), r.transport])).toEqual([
      ['weather', 0, 'stdio'],
      ['empty', 1, undefined],
    ]);
    expect(JSON.parse(serverRows[0]!.payload as string)).toEqual(session.mcpServers[0]);
    expect(driver.find('MERGE (c)-[:CHILD_OF]->(p)')[0]?.params).toEqual({ ids: ['s1'] });
  });

  it('a call written again as another class or under another parent loses its old label and CHILD_OF', async () => {
    const { driver, store } = open();
    await store.writeSessions([richSession('s1', 1000)]);
    const tool = driver.find('seq, c:ToolCall')[0]!.cypher;
    expect(tool.split('\n').slice(4)).toEqual([
      'SET c = row, c.seq = seq, c:ToolCall',
      'REMOVE c:MASCall:AgentCall:TaskCall:LLMCall',
      'MERGE (s)-[:HAS_CALL]->(c)',
      'WITH c, row',
      'OPTIONAL MATCH (c)-[stale:CHILD_OF]->(p)',
      'WHERE row.parentId IS NULL OR p.id <> row.parentId',
      'DELETE stale',
    ]);
    expect(driver.find('seq, c:MASCall')[0]!.cypher).toContain('REMOVE c:AgentCall:TaskCall:LLMCall:ToolCall\n');
  });

  it('sends rows in UNWIND batches of the configured size', async () => {
    const { driver, store } = open(undefined, 1000);
    const session = bareSession('many', 0, { toolCalls: Array.from({ length: 2500 }, (_, i) => toolCall('many', i, 0)) });
    await store.writeSessions([session]);
    const toolRuns = driver.find('seq, c:ToolCall');
    expect(toolRuns.map((r) => (r.params.rows as unknown[]).length)).toEqual([1000, 1000, 500]);
    const seqs = toolRuns.flatMap((r) => (r.params.rows as { seq: { toNumber(): number } }[]).map((x) => x.seq.toNumber()));
    expect(seqs).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    expect(driver.find('seq, c:LLMCall')).toEqual([]); // no statement for an empty class

    const results = Array.from({ length: 2100 }, (_, i) => metricResult(`r${i}`, 'many', { at: i }));
    const outcome = await store.writeMetricResults(DEFINITIONS, results);
    expect(outcome).toEqual({ written: 2100, rejected: [] });
    expect(driver.find('MERGE (r:MetricResult').map((r) => (r.params.rows as unknown[]).length)).toEqual([1000, 1000, 100]);
    expect(driver.find('DELETE old').map((r) => (r.params.ids as unknown[]).length)).toEqual([1000, 1000, 100]);
  });

  it('merges with what is stored: positions continue after the last stored call, header fields merge', async () => {
    const stored = {
      session: { id: 'p', startTime: 500, endTime: 800, traceIds: ['t0'], serviceName: 'kept' },
      lastCall: neo4j.int(4),
      lastServer: null,
    };
    const { driver, store } = open((cypher) => (cypher.includes('MERGE (s:Session {id: id})') ? [stored] : []));
    const part: Session = bareSession('p', 600, { endTime: 900, traceIds: ['t1'], serviceName: 'ignored', toolCalls: [toolCall('p', 1, 600)] });
    await store.writeSessions([part]);
    expect(driver.find('SET s = row')[0]?.params.rows).toEqual([
      { id: 'p', startTime: 500, endTime: 900, traceIds: ['t0', 't1'], serviceName: 'kept' },
    ]);
    const [tools] = driver.find('seq, c:ToolCall');
    expect(isInt((tools?.params.rows as { seq: unknown }[])[0]?.seq, 5)).toBe(true);
    // A stored call keeps its position: the statement only uses row.seq for a new node.
    expect(tools?.cypher).toContain('coalesce(c.seq, row.seq)');
  });

  it('reconciles a part with the stored calls, read in the same transaction: removes a phantom MAS call, rewrites linked calls', async () => {
    const { withRoot, withoutRoot } = tripInParts('trip', 1000);
    const header = { id: 'trip', startTime: withoutRoot.startTime, endTime: withoutRoot.endTime, traceIds: withoutRoot.traceIds };
    const payloads = [...withoutRoot.masCalls, ...withoutRoot.taskCalls, ...withoutRoot.llmCalls, ...withoutRoot.toolCalls].map((c) => JSON.stringify(c));
    const { driver, store } = open((cypher, params) => {
      if (cypher.includes('MERGE (s:Session {id: id})')) return [{ session: header, lastCall: neo4j.int(3), lastServer: null }];
      if (cypher.includes('RETURN id AS sessionId, c.payload AS payload')) return (params.ids as string[]).flatMap((id) => payloads.map((payload) => ({ sessionId: id, payload })));
      return [];
    });
    await store.writeSessions([withRoot]);
    expect(driver.runs.every((r) => r.mode === 'write' && r.session === 1)).toBe(true);
    expect(driver.find('RETURN id AS sessionId, c.payload AS payload')[0]?.params).toEqual({ ids: ['trip'] });
    expect(driver.find('DETACH DELETE r, c')[0]?.params).toEqual({ rows: [{ sessionId: 'trip', id: 'f00df00df00df00df00df00df00df00d' }] });
    // The results that measured the removed call are deleted with it.
    expect(driver.find('OPTIONAL MATCH (r:MetricResult)-[:measures]->(c)\nDETACH DELETE r, c')).toHaveLength(1);
    const written = (kind: string) => driver.find(`seq, c:${kind}`).flatMap((r) => (r.params.rows as { id: string; parentId?: string; payload: string }[]));
    expect(written('TaskCall').map((r) => [r.id, r.parentId, JSON.parse(r.payload).masCallId])).toEqual([['trip-k', 'trip-a', 'trip-w']]);
    expect(written('MASCall').map((r) => r.id)).toEqual(['trip-w']);
    // A new session reads nothing back.
    const fresh = open();
    await fresh.store.writeSessions([withRoot]);
    expect(fresh.driver.find('c.payload AS payload')).toEqual([]);
    expect(fresh.driver.find('DETACH DELETE r, c')).toEqual([]);
  });

  it('folds a stored inner call into the outer call of a later part: deletes it with its results, relinks the call below it', async () => {
    const { outer, inner } = nestedInParts('nest', 1000);
    const header = { id: 'nest', startTime: inner.startTime, endTime: inner.endTime, traceIds: inner.traceIds };
    const payloads = [...inner.masCalls, ...inner.llmCalls, ...inner.toolCalls].map((c) => JSON.stringify(c));
    const { driver, store } = open((cypher) => {
      if (cypher.includes('MERGE (s:Session {id: id})')) return [{ session: header, lastCall: neo4j.int(3), lastServer: neo4j.int(0) }];
      if (cypher.includes('RETURN id AS sessionId, c.payload AS payload')) return payloads.map((payload) => ({ sessionId: 'nest', payload }));
      return [];
    });
    await store.writeSessions([outer]);
    // The implicit MAS call, and the inner spans' calls folded into the outer ones, with the results that measured them.
    expect(driver.find('DETACH DELETE r, c')[0]?.params).toEqual({
      rows: [{ sessionId: 'nest', id: 'beefbeefbeefbeefbeefbeefbeefbeef' }, { sessionId: 'nest', id: 'nest-li' }, { sessionId: 'nest', id: 'nest-ti' }],
    });
    const written = (kind: string) => driver.find(`seq, c:${kind}`).flatMap((r) => (r.params.rows as { id: string; parentId?: string; payload: string }[]));
    const llm = written('LLMCall').map((r) => [r.id, r.parentId, JSON.parse(r.payload).usage.totalTokens, JSON.parse(r.payload).provider]);
    expect(llm).toEqual([['nest-l', 'nest-a', 1050, 'openai'], ['nest-ls', 'nest-t', 25, undefined]]);
    expect(written('ToolCall').map((r) => [r.id, JSON.parse(r.payload).mcp?.server])).toEqual([['nest-t', 'weather-mcp']]);
    // LINK_PARENTS then links the relinked call: its CHILD_OF went with the deleted inner call.
    expect(driver.find('MERGE (c)-[:CHILD_OF]->(p)')).toHaveLength(1);
  });

  it('sends results with Integer counts, JSON details and no null properties; reads them back as numbers', async () => {
    const judged = metricResult('j1', 'S', { metric: DEFINITIONS[2], at: 3 });
    const plain = metricResult('p1', 'S', { at: 4 });
    const { driver, store } = open((cypher) => {
      if (cypher.includes('MATCH (m:Metric) WHERE m.id IN $ids')) return [{ id: 'mce:Duration' }];
      if (cypher.includes('RETURN properties(r) AS result')) {
        const sent = driver.find('MERGE (r:MetricResult')[0]!.params.rows as Record<string, unknown>[];
        return sent.map((result) => ({ result, metric: { id: 'x', name: 'x', computedBy: 'mce', unit: 'ms', valueRange: 'r' } }));
      }
      return [];
    });
    const outcome = await store.writeMetricResults([DEFINITIONS[2]!], [judged, plain, { ...plain, id: 'bad', result: Number.NaN }]);
    expect(outcome.written).toBe(2);
    expect(outcome.rejected.map((r) => r.id)).toEqual(['bad']);
    // mce:Duration is not in this batch's definitions: its existence is checked in the graph.
    expect(driver.find('MATCH (m:Metric) WHERE m.id IN $ids')[0]?.params).toEqual({ ids: ['mce:Duration'] });
    const [metrics] = driver.find('MERGE (m:Metric {id: row.id})');
    expect(metrics?.params.rows).toEqual([DEFINITIONS[2]]);
    // Unchanged definitions are filtered out by a read before the MERGE: no write lock on every Metric per batch.
    expect(metrics?.cypher.split('\n')).toEqual([
      'UNWIND $rows AS row',
      'OPTIONAL MATCH (stored:Metric {id: row.id})',
      'WITH row, stored',
      'WHERE stored IS NULL OR properties(stored) <> row',
      'MERGE (m:Metric {id: row.id})',
      'SET m = row',
    ]);

    const rows = driver.find('MERGE (r:MetricResult')[0]?.params.rows as Record<string, unknown>[];
    const [j, p] = rows as [Record<string, unknown>, Record<string, unknown>];
    expect(Object.values(j).every(storable)).toBe(true);
    expect(isInt(j.evaluationPromptTokenCount, 512)).toBe(true);
    expect(isInt(j.evaluationCompletionTokenCount, 40)).toBe(true);
    expect(isInt(j.evaluationTotalTokenCount, 552)).toBe(true);
    expect(isInt(j.computedAt, Date.parse('2026-01-01T00:00:03.000Z'))).toBe(true);
    expect(j.details).toBe('{"samples":[4,5],"method":"logprobs"}');
    expect(j).toMatchObject({ result: 0.75, evaluationCost: 0.00168, measuresLevel: 'Session', measuresId: 'S', ofMetricType: 'deepeval:AnswerRelevancy' });
    expect(p).not.toHaveProperty('evaluationModel');
    expect(p).not.toHaveProperty('details');
    expect(isInt(p.evaluationPromptTokenCount, 0)).toBe(true);

    const back = await store.getMetricResults('S', { recursive: true, metricNames: ['Duration'] });
    expect(back.map((b) => b.result)).toStrictEqual([judged, plain]);
    expect(driver.find('RETURN properties(r) AS result')[0]?.params).toEqual({ sessionId: 'S', recursive: true, names: ['Duration'] });
    // Not recursive unless asked, every name when none is given; the session's own results only then, newest first.
    await store.getMetricResults('S');
    expect(driver.find('RETURN properties(r) AS result')[1]?.params).toEqual({ sessionId: 'S', recursive: false, names: null });
    expect(driver.find('RETURN properties(r) AS result')[0]?.cypher.split('\n').slice(1, 5)).toEqual([
      'WHERE r.sessionId = $sessionId',
      "  AND ($recursive OR (r.measuresLevel = 'Session' AND r.measuresId = $sessionId))",
      '  AND ($names IS NULL OR r.name IN $names)',
      'WITH r, m ORDER BY r.computedAt DESC, r.id',
    ]);
    expect(driver.opened).toBe(driver.closed);
  });

  it('pages with Integer SKIP/LIMIT, omits LIMIT when there is none, and converts counts back', async () => {
    const { driver, store } = open(() => [
      { id: 'a', startTime: 10, endTime: 20, serviceName: 'svc', appName: null, kinds: [{ kind: 'ToolCall', n: neo4j.int(3) }], servers: neo4j.int(1) },
      { id: 'b', startTime: 5, endTime: 6, serviceName: null, appName: null, kinds: [{ kind: null, n: neo4j.int(0) }], servers: neo4j.int(0) },
    ]);
    const listed = await store.listSessions({ limit: 2, offset: 4, serviceName: 'svc', from: 1 });
    expect(listed).toStrictEqual([
      { id: 'a', startTime: 10, endTime: 20, serviceName: 'svc', counts: { masCalls: 0, agentCalls: 0, taskCalls: 0, llmCalls: 0, toolCalls: 3, mcpServers: 1 } },
      { id: 'b', startTime: 5, endTime: 6, counts: { masCalls: 0, agentCalls: 0, taskCalls: 0, llmCalls: 0, toolCalls: 0, mcpServers: 0 } },
    ]);
    const [paged] = driver.runs;
    expect(paged?.mode).toBe('read');
    expect(paged?.cypher).toContain('WITH s ORDER BY s.startTime DESC, s.id SKIP $offset'); // newest first
    expect(paged?.cypher).toContain('SKIP $offset LIMIT $limit');
    expect(isInt(paged?.params.offset, 4)).toBe(true);
    expect(isInt(paged?.params.limit, 2)).toBe(true);
    expect(paged?.params).toMatchObject({ from: 1, to: null, serviceName: 'svc', appName: null });
    await store.listSessions();
    expect(driver.runs[1]?.cypher).not.toContain('LIMIT');
    expect(driver.runs[1]?.params).not.toHaveProperty('limit');
    // The ids alone: the same filtered, ordered, paged sessions, returned without counting their calls.
    expect(await store.listSessionIds({ limit: 2, offset: 4, serviceName: 'svc', from: 1 })).toEqual(['a', 'b']);
    const idsRun = driver.runs[2];
    expect(idsRun?.cypher.split('\n').slice(-2)).toEqual(['RETURN s.id AS id, s.startTime AS startTime', 'ORDER BY startTime DESC, id']);
    expect(idsRun?.cypher).not.toContain('HAS_CALL');
    expect(idsRun?.cypher).toContain('SKIP $offset LIMIT $limit');
    expect(isInt(idsRun?.params.limit, 2)).toBe(true);
    expect(idsRun?.params).toMatchObject({ from: 1, to: null, serviceName: 'svc', appName: null });
  });

  it('deletes results by session and id in UNWIND batches, in one write, and sums the counts', async () => {
    const { driver, store } = open((cypher, params) => (cypher.includes('DETACH DELETE r') ? [{ removed: neo4j.int((params.rows as unknown[]).length - 1) }] : []), 2);
    const gone = [
      { sessionId: 's', id: 'a' },
      { sessionId: 's', id: 'b' },
      { sessionId: 't', id: 'c' },
    ];
    expect(await store.deleteMetricResults(gone)).toBe(1); // batches of 2 and 1, answering 1 and 0
    expect(driver.runs.map((r) => [r.mode, r.session, r.params.rows])).toEqual([
      ['write', 1, gone.slice(0, 2)],
      ['write', 1, gone.slice(2)],
    ]);
    expect(driver.runs[0]?.cypher.split('\n')).toEqual([
      'UNWIND $rows AS row',
      'MATCH (r:MetricResult {id: row.id, sessionId: row.sessionId})',
      'DETACH DELETE r',
      'RETURN count(*) AS removed',
    ]);
    expect(await store.deleteMetricResults([])).toBe(0);
    expect(driver.runs).toHaveLength(2);
  });

  it('queries results across sessions with only the filters given, Integer times and pages, newest first', async () => {
    const stored = metricResult('q1', 'S', { at: 3, metric: DEFINITIONS[2], level: 'LLMCall', measures: 'S-llm' });
    // The result as sent (Integer counts, JSON details) is what the server answers.
    const { driver, store } = open((cypher) =>
      cypher.includes('RETURN properties(r) AS result, properties(m) AS metric')
        ? [{ result: (driver.find('MERGE (r:MetricResult')[0]!.params.rows as unknown[])[0], metric: { ...DEFINITIONS[2] } }]
        : [],
    );
    await store.writeMetricResults(DEFINITIONS, [stored]);
    const first = driver.runs.length;
    expect(await store.queryMetricResults({ limit: 10 })).toStrictEqual([{ result: stored, metric: DEFINITIONS[2] }]);
    const everything = driver.runs[first]!;
    expect(everything.mode).toBe('read');
    // No filter: the computedAt index, which also gives the order.
    expect(everything.cypher.split('\n')).toEqual([
      'MATCH (r:MetricResult)-[:ofMetricType]->(m:Metric)',
      'WHERE r.computedAt IS NOT NULL',
      'WITH r, m ORDER BY r.computedAt DESC, r.id SKIP $offset LIMIT $limit',
      'RETURN properties(r) AS result, properties(m) AS metric',
    ]);
    expect(Object.keys(everything.params).sort()).toEqual(['limit', 'offset']);
    expect([isInt(everything.params.limit, 10), isInt(everything.params.offset, 0)]).toEqual([true, true]);

    await store.queryMetricResults({
      metrics: ['Duration', 'deepeval:AnswerRelevancy', 'Duration'],
      levels: ['Session', 'LLMCall'],
      from: Date.parse('2026-01-01T00:00:00Z') + 0.5,
      to: new Date(Date.parse('2026-01-01T00:01:00Z')),
      min: 0.5,
      max: 2,
      offset: 20,
    });
    const filtered = driver.runs[first + 1]!;
    expect(filtered.cypher.split('\n')).toEqual([
      'MATCH (r:MetricResult)-[:ofMetricType]->(m:Metric)',
      'WHERE r.computedAt >= $from',
      '  AND r.computedAt <= $to',
      '  AND (r.name IN $names OR r.ofMetricType IN $metricIds)',
      '  AND r.measuresLevel IN $levels',
      '  AND r.result >= $min',
      '  AND r.result <= $max',
      'WITH r, m ORDER BY r.computedAt DESC, r.id SKIP $offset',
      'RETURN properties(r) AS result, properties(m) AS metric',
    ]);
    const { from, to, offset, ...rest } = filtered.params;
    // Bounds as whole milliseconds, rounded inwards; Integers, as computedAt is stored.
    expect([isInt(from, Date.parse('2026-01-01T00:00:00.001Z')), isInt(to, Date.parse('2026-01-01T00:01:00Z')), isInt(offset, 20)]).toEqual([true, true, true]);
    expect(rest).toEqual({ names: ['Duration'], metricIds: ['deepeval:AnswerRelevancy'], levels: ['Session', 'LLMCall'], min: 0.5, max: 2 });

    // Sessions: their index, no computedAt predicate to compete with it; one kind of metric, no OR.
    await store.queryMetricResults({ sessionIds: ['S', 'T'], metrics: ['mce:Duration'] });
    const bySession = driver.runs[first + 2]!;
    expect(bySession.cypher.split('\n').slice(1, 3)).toEqual(['WHERE r.sessionId IN $sessionIds', '  AND r.ofMetricType IN $metricIds']);
    expect(bySession.params).toMatchObject({ sessionIds: ['S', 'T'], metricIds: ['mce:Duration'] });
    // A list given empty matches nothing: nothing is sent.
    expect(await store.queryMetricResults({ levels: [] })).toEqual([]);
    expect(driver.runs).toHaveLength(first + 3);
    expect(driver.opened).toBe(driver.closed);
  });

  it('summarizes results in one read: per Metric and level, percentileDisc for the percentiles, rows in summary order', async () => {
    const at = (iso: string) => neo4j.int(Date.parse(iso));
    const figures = { count: neo4j.int(2), mean: 15, min: 10, max: 20, p50: 10, p90: 20, p95: 20, sessions: neo4j.int(1), first: at('2026-01-01T00:00:01Z'), last: at('2026-01-01T00:00:02Z') };
    // Answered out of order: the store sorts by Metric id, then level in ontology order.
    const { driver, store } = open((cypher) =>
      cypher.includes('percentileDisc')
        ? [
            { metric: { ...DEFINITIONS[1] }, level: 'ToolCall', ...figures },
            { metric: { ...DEFINITIONS[0] }, level: 'LLMCall', ...figures },
            { metric: { ...DEFINITIONS[0] }, level: 'Session', ...figures },
          ]
        : [],
    );
    const row = (metric: (typeof DEFINITIONS)[0], level: string) => ({
      metric, level, count: 2, mean: 15, min: 10, max: 20, p50: 10, p90: 20, p95: 20, sessions: 1, first: '2026-01-01T00:00:01.000Z', last: '2026-01-01T00:00:02.000Z',
    });
    expect(await store.summarizeMetricResults()).toStrictEqual([row(DEFINITIONS[0]!, 'Session'), row(DEFINITIONS[0]!, 'LLMCall'), row(DEFINITIONS[1]!, 'ToolCall')]);
    const [everything] = driver.runs;
    expect([everything!.mode, everything!.params]).toEqual(['read', {}]);
    expect(everything!.cypher.split('\n')).toEqual([
      'MATCH (r:MetricResult)-[:ofMetricType]->(m:Metric)',
      'WHERE r.computedAt IS NOT NULL',
      'WITH m, r.measuresLevel AS level, count(r) AS `count`, avg(r.result) AS mean, min(r.result) AS `min`, max(r.result) AS `max`,',
      '  percentileDisc(r.result, 0.5) AS p50, percentileDisc(r.result, 0.9) AS p90, percentileDisc(r.result, 0.95) AS p95,',
      '  count(DISTINCT r.sessionId) AS sessions, min(r.computedAt) AS `first`, max(r.computedAt) AS `last`',
      'RETURN properties(m) AS metric, level, `count`, mean, `min`, `max`, p50, p90, p95, sessions, `first`, `last`',
    ]);

    // The filters of queryResults, without paging.
    await store.summarizeMetricResults({ metrics: ['Duration', 'deepeval:AnswerRelevancy'], levels: ['Session'], sessionIds: ['S'], from: 1000.5, to: 2000, min: -1, max: 1 });
    const filtered = driver.runs[1]!;
    expect(filtered.cypher.split('\n').slice(0, 8)).toEqual([
      'MATCH (r:MetricResult)-[:ofMetricType]->(m:Metric)',
      'WHERE r.computedAt >= $from',
      '  AND r.computedAt <= $to',
      '  AND r.sessionId IN $sessionIds',
      '  AND (r.name IN $names OR r.ofMetricType IN $metricIds)',
      '  AND r.measuresLevel IN $levels',
      '  AND r.result >= $min',
      '  AND r.result <= $max',
    ]);
    const { from, to, ...rest } = filtered.params;
    expect([isInt(from, 1001), isInt(to, 2000)]).toEqual([true, true]);
    expect(rest).toEqual({ sessionIds: ['S'], names: ['Duration'], metricIds: ['deepeval:AnswerRelevancy'], levels: ['Session'], min: -1, max: 1 });
    // A list given empty matches nothing: nothing is sent.
    expect(await store.summarizeMetricResults({ metrics: [] })).toEqual([]);
    expect(driver.runs).toHaveLength(2);
    expect(driver.opened).toBe(driver.closed);
  });

  it("percentileDisc's index (Neo4j's computePercentileDisc) is the nearest rank of the SQL stores", () => {
    const discIndex = (p: number, n: number) => {
      const floatIdx = p * n;
      const idx = Math.trunc(floatIdx);
      return floatIdx !== idx || idx === 0 ? idx : idx - 1;
    };
    for (const p of PERCENTILES) {
      for (let n = 1; n <= 100_000; n++) if (discIndex(p / 100, n) !== nearestRank(p, n) - 1) expect([p, n]).toBe('the same index');
    }
    expect([nearestRank(50, 1), nearestRank(90, 10), nearestRank(95, 10), nearestRank(50, 10)]).toEqual([1, 9, 10, 5]);
  });

  it('writes results only of sessions the write found stored and locked; rejects the others naming their session', async () => {
    const { driver, store } = open((cypher, params) =>
      cypher.startsWith(LOCK) ? (params.ids as string[]).filter((id) => id !== 'gone').map((id) => ({ id, stored: id !== 'header-less' })) : [],
    );
    const outcome = await store.writeMetricResults(DEFINITIONS, [
      metricResult('k1', 'kept', { at: 1 }),
      metricResult('g1', 'gone', { at: 2 }),
      metricResult('h1', 'header-less', { at: 3 }),
    ]);
    expect(outcome.written).toBe(1);
    expect(outcome.rejected.map((r) => [r.id, r.unstoredSession, r.reasons[0]?.message])).toEqual([
      ['g1', 'gone', 'session "gone" is not stored (deleted while its results were computed?)'],
      ['h1', 'header-less', 'session "header-less" is not stored (deleted while its results were computed?)'],
    ]);
    const lock = driver.runs.findIndex((r) => r.cypher.startsWith(LOCK));
    expect(driver.runs[lock]?.cypher).toBe('MATCH (s:Session) WHERE s.id IN $ids\nSET s.mceLock = true REMOVE s.mceLock\nRETURN s.id AS id, s.startTime IS NOT NULL AS stored');
    expect(driver.runs[lock]?.params).toEqual({ ids: ['kept', 'gone', 'header-less'] });
    // In the write's transaction, before any result is written.
    const merge = driver.runs.findIndex((r) => r.cypher.includes('MERGE (r:MetricResult'));
    expect(lock).toBeLessThan(merge);
    expect(new Set(driver.runs.map((r) => r.session)).size).toBe(1);
    expect((driver.runs[merge]?.params.rows as { id: string }[]).map((r) => r.id)).toEqual(['k1']);
  });

  it('deletes sessions in one write: their results, calls and servers, then the nodes; answers the ids that were stored', async () => {
    const { driver, store } = open(
      (cypher, params) => (cypher.includes('RETURN id, stored') ? (params.ids as string[]).map((id) => ({ id, stored: id !== 'lock-only' })).filter((r) => r.id !== 'ghost') : []),
      2,
    );
    expect(await store.deleteSessions(['b', 'ghost', 'a', 'b', 'lock-only'])).toEqual(['b', 'a']);
    expect(driver.runs.map((r) => [r.mode, r.session, r.cypher.split('\n')[1], r.params.ids])).toEqual([
      // The session nodes are locked first: a result write holding one commits before its results are deleted.
      ['write', 1, 'SET s.mceLock = true REMOVE s.mceLock', ['b', 'ghost']],
      ['write', 1, 'MATCH (r:MetricResult {sessionId: id})', ['b', 'ghost']],
      ['write', 1, 'MATCH (:Session {id: id})-[:HAS_CALL|HAS_MCP_SERVER]->(e)', ['b', 'ghost']],
      ['write', 1, 'MATCH (s:Session {id: id})', ['b', 'ghost']],
      ['write', 1, 'SET s.mceLock = true REMOVE s.mceLock', ['a', 'lock-only']],
      ['write', 1, 'MATCH (r:MetricResult {sessionId: id})', ['a', 'lock-only']],
      ['write', 1, 'MATCH (:Session {id: id})-[:HAS_CALL|HAS_MCP_SERVER]->(e)', ['a', 'lock-only']],
      ['write', 1, 'MATCH (s:Session {id: id})', ['a', 'lock-only']],
    ]);
    expect(driver.runs.slice(1, 4).map((r) => r.cypher)).toEqual([
      'UNWIND $ids AS id\nMATCH (r:MetricResult {sessionId: id})\nDETACH DELETE r',
      'UNWIND $ids AS id\nMATCH (:Session {id: id})-[:HAS_CALL|HAS_MCP_SERVER]->(e)\nDETACH DELETE e',
      'UNWIND $ids AS id\nMATCH (s:Session {id: id})\nWITH id, s, s.startTime IS NOT NULL AS stored\nDETACH DELETE s\nRETURN id, stored',
    ]);
    expect(await store.deleteSessions([])).toEqual([]);
    expect(driver.runs).toHaveLength(8);
    expect([driver.opened, driver.closed]).toEqual([1, 1]);
  });

  it('reads a session back from its nodes', async () => {
    const session = richSession('r', 0);
    const { store } = open((cypher) => {
      if (cypher.includes('RETURN properties(s) AS session')) {
        return [{ session: { id: 'r', startTime: 0, endTime: 5000.25, serviceName: 'travel-service', appName: 'travel-app', traceIds: session.traceIds, userInput: session.userInput, finalResponse: session.finalResponse, attributes: JSON.stringify(session.attributes) } }];
      }
      if (cypher.includes('c.payload')) return [...session.masCalls, ...session.agentCalls, ...session.taskCalls, ...session.llmCalls, ...session.toolCalls].map((c) => ({ payload: JSON.stringify(c) }));
      if (cypher.includes('m.payload')) return session.mcpServers.map((m) => ({ payload: JSON.stringify(m) }));
      return [];
    });
    expect(await store.getSession('r')).toStrictEqual(session);
    // A closed store stops answering, though its (shared) driver lives on.
    await store.close();
    await expect(store.getSession('r')).rejects.toThrow('the Neo4j store is closed');
  });

  it('closes its driver session when the work fails', async () => {
    const { driver, store } = open(() => {
      throw new Error('connection reset');
    });
    await expect(store.writeSessions([bareSession('x', 0)])).rejects.toThrow('connection reset');
    await expect(store.getSession('x')).rejects.toThrow('connection reset');
    expect(driver.opened).toBe(2);
    expect(driver.closed).toBe(2);
  });
});

describe('Neo4j driver sharing', () => {
  it('uses one driver per process and target, closed when the last store closes', async () => {
    const target = { url: 'bolt://graph.invalid:7687', username: 'neo4j', password: 'x' };
    const a = new Neo4jStore(target, { logger: quiet });
    const b = new Neo4jStore({ ...target, database: 'other' }, { logger: quiet });
    const driverOf = (store: Neo4jStore) => (store as unknown as { driver: { close(): Promise<void> } }).driver;
    expect(driverOf(a)).toBe(driverOf(b));
    const closes: number[] = [];
    const driver = driverOf(a);
    const close = driver.close.bind(driver);
    driver.close = async () => {
      closes.push(1);
      await close();
    };
    await a.close();
    await a.close(); // closing twice releases once
    expect(closes).toEqual([]);
    await b.close();
    expect(closes).toEqual([1]);
    const c = new Neo4jStore(target, { logger: quiet });
    expect(driverOf(c)).not.toBe(driver);
    await c.close();
  });
});
