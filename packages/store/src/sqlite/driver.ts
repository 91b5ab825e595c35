import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { MceError } from '@mce/core';
import { isPackageMissing } from '../adapters.js';

/** better-sqlite3 is an optional peer: a PostgreSQL-only install has no SQLite to compile. */
export class SqliteDriverMissingError extends MceError {
  readonly kind = 'bad-input' as const;
  override readonly name = 'SqliteDriverMissingError';
}

const require = createRequire(import.meta.url);
let driver: typeof BetterSqlite3 | undefined;

/** The better-sqlite3 constructor, loaded on first use (synchronously: it is CommonJS), or an error saying what to install. */
export function sqliteDriver(): typeof BetterSqlite3 {
  if (driver) return driver;
  try {
    driver = require('better-sqlite3') as typeof BetterSqlite3;
  } catch (error) {
    if (!isPackageMissing(error, 'better-sqlite3')) throw error;
    throw new SqliteDriverMissingError('the embedded SQLite store needs better-sqlite3: npm install better-sqlite3 (or use a postgres:// store with @mce/store-postgres)', {
      cause: error,
    });
  }
  return driver;
}
