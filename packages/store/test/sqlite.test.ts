import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore, SqliteStore, type KnowledgeGraphStore, type ResultQuery } from '../src/index.js';
import { planResultQuery } from '../src/result-query.js';
import { resultQueryStatement } from '../src/sqlite/sqlite-store.js';
import { storeConformance } from '../src/conformance/suite.js';
import { sqliteRowsMentioning } from './support/leftovers.js';
import { bareSession, DEFINITIONS, metricResult, richSession, toolCall } from '../src/conformance/sessions.js';
import { SQLITE_MIGRATIONS } from '../src/sqlite/migrations.js';
import { callRows, headerRow, serverRows } from '../src/rows.js';
import { sessionHeader } from '@mce/ingest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mce-store-sqlite-'));
let n = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const files = new WeakMap<KnowledgeGraphStore, string>();
storeConformance('SQLite', {
  open: async (logger) => {
    const file = path.join(dir, `conformance-${++n}.db`);
    const store = await openStore(`sqlite:${file}`, { logger });
    files.set(store, file);
    return store;
  },
  rowsMentioning: async (store, text) => sqliteRowsMentioning(files.get(store)!, text),
});

describe('SQLite store file', () => {
  it('creates the directory on first use, uses WAL and records the applied migration', async () => {
    const file = path.join(dir, 'nested', 'deeper', 'mce.db');
    const store = await openStore(`sqlite:${file}`);
    expect(store).toBeInstanceOf(SqliteStore);
    await store.writeSessions([bareSession('one', 1)]);
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare('SELECT version, name FROM schema_migrations').all()).toEqual([
      { version: 1, name: 'sessions, calls, MCP servers, metrics and results' },
      { version: 2, name: 'metric_results by computed_at' },
      { version: 3, name: 'sessions carry their element counts' },
    ]);
    db.close();
  });

  it('an up-to-date store opens and reads while another process holds the write lock', async () => {
    const file = path.join(dir, 'locked.db');
    const first = await openStore(`sqlite:${file}`);
    await first.writeSessions([bareSession('stored', 1)]);
    await first.close();
    const writer = new Database(file);
    writer.exec('BEGIN IMMEDIATE'); // a long ingest of another process, say
    try {
      // Taking the lock to open, it would wait out the 10 s busy timeout and fail: "database is locked".
      const reader = await openStore(`sqlite:${file}`);
      expect((await reader.listSessions()).map((s) => s.id)).toEqual(['stored']);
      await reader.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('a store written by schema version 2 lists its sessions with their element counts once migrated', async () => {
    const file = path.join(dir, 'v2.db');
    const old = new Database(file);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 2)) {
      old.exec(m.sql);
      old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, new Date(0).toISOString());
    }
    // The rows as version 2 wrote them: no counts in the sessions table.
    const rich = richSession();
    for (const session of [rich, bareSession('bare', 5)]) {
      const header = headerRow(sessionHeader(session));
      old.prepare('INSERT INTO sessions VALUES (@id, @startTime, @endTime, @serviceName, @appName, @traceIds, @userInput, @finalResponse, @attributes)')
        .run({ ...header, traceIds: JSON.stringify(header.traceIds) });
      const insertCall = old.prepare('INSERT INTO calls VALUES (@sessionId, @id, @kind, @seq, @name, @traceId, @parentId, @startTime, @endTime, @status, @payload)');
      for (const row of callRows(session, 0)) insertCall.run(row);
      for (const row of serverRows(session, 0)) old.prepare('INSERT INTO mcp_servers VALUES (@sessionId, @name, @seq, @transport, @payload)').run(row);
    }
    old.close();
    const store = await openStore(`sqlite:${file}`);
    const listed = new Map((await store.listSessions()).map((s) => [s.id, s.counts]));
    expect(listed.get('bare')).toEqual({ masCalls: 0, agentCalls: 0, taskCalls: 0, llmCalls: 0, toolCalls: 0, mcpServers: 0 });
    expect(listed.get(rich.id)).toEqual({ masCalls: 1, agentCalls: 1, taskCalls: 1, llmCalls: 1, toolCalls: 1, mcpServers: 2 });
    // Written on after the migration, the counts go on from the filled ones.
    await store.writeSessions([bareSession(rich.id, rich.startTime, { toolCalls: [toolCall(rich.id, 9, 0)] })]);
    expect((await store.listSessions()).find((s) => s.id === rich.id)?.counts).toMatchObject({ toolCalls: 2, mcpServers: 2 });
    await store.close();
  });

  it('a call added by a later part gets the next position, after the stored calls', async () => {
    const file = path.join(dir, 'positions.db');
    const store = await openStore(`sqlite:${file}`);
    await store.writeSessions([bareSession('parts', 1, { toolCalls: [toolCall('parts', 1, 1), toolCall('parts', 2, 1)] })]);
    await store.writeSessions([bareSession('parts', 1, { toolCalls: [toolCall('parts', 3, 1)] })]);
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT id, seq FROM calls WHERE session_id = ? ORDER BY seq').all('parts')).toEqual([
      { id: toolCall('parts', 1, 1).id, seq: 0 },
      { id: toolCall('parts', 2, 1).id, seq: 1 },
      { id: toolCall('parts', 3, 1).id, seq: 2 },
    ]);
    db.close();
  });

  it('two stores on the same file see each other’s writes', async () => {
    const file = path.join(dir, 'shared.db');
    const a = await openStore(`sqlite:${file}`);
    const b = await openStore(`sqlite:${file}`);
    await a.writeSessions([bareSession('from-a', 1)]);
    await b.writeSessions([bareSession('from-b', 2)]);
    expect((await a.listSessions()).map((s) => s.id)).toEqual(['from-b', 'from-a']);
    await a.close();
    await b.close();
  });

  it('results across sessions come newest first from the computed_at index, only ties sorted; by session from the session index', async () => {
    const file = path.join(dir, 'plans.db');
    const store = await openStore(`sqlite:${file}`);
    const results = Array.from({ length: 20_000 }, (_, i) => metricResult(`p${i}`, `s${i % 400}`, { at: i % 5000, metric: DEFINITIONS[i % 3], value: i }));
    await store.writeSessions(Array.from({ length: 400 }, (_, i) => bareSession(`s${i}`, 0)));
    expect(await store.writeMetricResults(DEFINITIONS, results)).toEqual({ written: 20_000, rejected: [] });
    await store.close();
    const db = new Database(file);
    db.exec('ANALYZE');
    const plan = (query: ResultQuery) => {
      const { sql, values } = resultQueryStatement(planResultQuery(query)!);
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[]).map((r) => r.detail);
    };
    for (const query of [{ limit: 50 }, { metrics: ['Duration', 'mce:Cost'], limit: 50 }, { levels: ['Session' as const], min: 3, limit: 50 }]) {
      const steps = plan(query);
      expect(steps[0], JSON.stringify(query)).toBe('SCAN r USING INDEX metric_results_computed');
      // Only the results of one time are sorted, by id (a sort of every row would say FOR ORDER BY).
      expect(steps.filter((s) => s.includes('TEMP B-TREE'))).toEqual(['USE TEMP B-TREE FOR LAST TERM OF ORDER BY']);
    }
    expect(plan({ from: 1, to: 2, limit: 50 })[0]).toBe('SEARCH r USING INDEX metric_results_computed (computed_at>? AND computed_at<?)');
    // (With a few rows per session among many: on a small table, walking the time index is what SQLite picks.)
    expect(plan({ sessionIds: ['s1', 's2'], limit: 50 })[0]).toBe('SEARCH r USING INDEX metric_results_session (session_id=?)');
    db.close();
  });
});
