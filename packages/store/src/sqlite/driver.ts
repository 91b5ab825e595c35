import { createRequire } from 'node:module';
import { MceError } from '@mce/core';
import { isPackageMissing } from '../adapters.js';

/** better-sqlite3 is an optional peer: a PostgreSQL-only install has no SQLite to compile. */
export class SqliteDriverMissingError extends MceError {
  readonly kind = 'bad-input' as const;
  override readonly name = 'SqliteDriverMissingError';
}

/**
 * better-sqlite3's constructor as the published types name it. Callers pass `typeof Database` from better-sqlite3 as the
 * type argument: the declarations then import nothing from @types/better-sqlite3, which a consumer need not have.
 */
export type SqliteDriverConstructor = new (filename: string, options?: Record<string, unknown>) => unknown;

const require = createRequire(import.meta.url);
let driver: unknown;

/** The better-sqlite3 constructor, loaded on first use (synchronously: it is CommonJS), or an error saying what to install. */
export function sqliteDriver<Driver = SqliteDriverConstructor>(): Driver {
  if (driver) return driver as Driver;
  try {
    driver = require('better-sqlite3');
  } catch (error) {
    if (!isPackageMissing(error, 'better-sqlite3')) throw error;
    throw new SqliteDriverMissingError('the embedded SQLite store needs better-sqlite3: npm install better-sqlite3 (or use a postgres:// store with @mce/store-postgres)', {
      cause: error,
    });
  }
  return driver as Driver;
}
