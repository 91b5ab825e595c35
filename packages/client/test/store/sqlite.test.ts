import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore, SqliteStore } from '../../src/store/index.js';
import { storeConformance } from './support/conformance.js';
import { bareSession } from './support/sessions.js';

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
