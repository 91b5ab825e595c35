import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore, SqliteStore } from '../../src/store/index.js';
import { storeConformance } from './support/conformance.js';
import { bareSession, toolCall } from './support/sessions.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mce-store-sqlite-'));
let n = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

storeConformance('SQLite', {
  open: (logger) => openStore(`sqlite:${path.join(dir, `conformance-${++n}.db`)}`, { logger }),
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
});
