/**
 * The record/replay cache on a SQLite file (better-sqlite3): one row per cache key with the value, reasoning,
 * details and evaluation usage of a metric computation, so a replayed result reports the usage and cost it had.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from '@mce/store';
import type { CacheManager, CachedComputation, EvaluationUsage } from '@mce/core';

export interface SqliteCacheOptions {
  /** Replay cached computations (default true). */
  read?: boolean;
  /** Record new computations (default true). */
  write?: boolean;
}

interface Row {
  value: number;
  reasoning: string | null;
  details: string | null;
  evaluation: string | null;
  recorded_at: string;
}

export class SqliteCacheManager implements CacheManager {
  readonly read: boolean;
  readonly write: boolean;
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], Row>;
  private readonly upsert: Database.Statement<[string, number, string | null, string | null, string | null, string]>;

  /** `file` is a path (its directory is created) or `:memory:`. */
  constructor(
    readonly file: string,
    options: SqliteCacheOptions = {},
  ) {
    this.read = options.read ?? true;
    this.write = options.write ?? true;
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.db = new (sqliteDriver<typeof Database>())(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS metric_cache (
      key TEXT PRIMARY KEY,
      value REAL NOT NULL,
      reasoning TEXT,
      details TEXT,
      evaluation TEXT,
      recorded_at TEXT NOT NULL
    )`);
    this.select = this.db.prepare('SELECT value, reasoning, details, evaluation, recorded_at FROM metric_cache WHERE key = ?');
    this.upsert = this.db.prepare(
      `INSERT INTO metric_cache (key, value, reasoning, details, evaluation, recorded_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, reasoning = excluded.reasoning, details = excluded.details,
         evaluation = excluded.evaluation, recorded_at = excluded.recorded_at`,
    );
  }

  /** Entries recorded. */
  get size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM metric_cache').get() as { n: number }).n;
  }

  // async: a failing statement (a locked or full database, a closed one) is a rejected promise, never a throw.
  async get(key: string): Promise<CachedComputation | undefined> {
    if (!this.read) return undefined;
    const row = this.select.get(key);
    if (!row) return undefined;
    const entry: CachedComputation = { value: row.value, recordedAt: row.recorded_at };
    if (row.reasoning !== null) entry.reasoning = row.reasoning;
    if (row.details !== null) entry.details = JSON.parse(row.details) as Record<string, unknown>;
    if (row.evaluation !== null) entry.evaluation = JSON.parse(row.evaluation) as EvaluationUsage;
    return entry;
  }

  async set(key: string, value: CachedComputation): Promise<void> {
    if (!this.write) return;
    if (!Number.isFinite(value.value)) throw new Error(`metric cache: refusing a non-finite value for ${key}`);
    this.upsert.run(
      key,
      value.value,
      value.reasoning ?? null,
      value.details === undefined ? null : JSON.stringify(value.details),
      value.evaluation === undefined ? null : JSON.stringify(value.evaluation),
      value.recordedAt,
    );
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
