import { MceError, isStoreLocked, redactUrl, type ErrorKind } from '@mce/core';
import { existsSync } from 'node:fs';
import type { Neo4jStoreOptions } from './neo4j/neo4j-store.js';
import type { PostgresStore, PostgresStoreOptions } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { KnowledgeGraphStore, StoreLogger } from './types.js';
import { parseStoreUrl, sqliteFile, storeTargetFromEnv, type StoreTarget } from './url.js';

export interface OpenStoreOptions {
  logger?: StoreLogger;
  /** PostgreSQL only: schema (search_path) the tables live in. */
  schema?: PostgresStoreOptions['schema'];
  /** PostgreSQL only: pool size. */
  maxConnections?: number;
  /** Neo4j only: rows per UNWIND batch, database, or an injected driver. */
  neo4j?: Neo4jStoreOptions;
  /**
   * The store must exist already (commands that only read: a misspelt path or schema is an error, not a new empty
   * store): SQLite its file, PostgreSQL its schema's tables.
   */
  mustExist?: boolean;
}

/** A store that must exist does not (an SQLite file nobody has written). */
export class StoreNotFoundError extends MceError {
  readonly kind = 'not-found' as const;
  override readonly name = 'StoreNotFoundError';
}

/** A store URL that names no usable store, or a store that cannot be opened; the message names the URL (no password). */
export class StoreOpenError extends MceError {
  /** A wrong URL or file is the user's input; a server out of reach is unavailable. */
  get kind(): ErrorKind {
    return this.badInput ? 'bad-input' : 'unavailable';
  }
  override readonly name = 'StoreOpenError';
  constructor(
    message: string,
    /** The URL or the file it names is wrong (bad input), rather than a database server out of reach (a runtime failure). */
    readonly badInput: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * Open the store a URL (or target) names and create/migrate its schema. Close it when done, or hold it with
 * `await using store = await openStore(url)`.
 */
export async function openStore(target: string | StoreTarget, options: OpenStoreOptions = {}): Promise<KnowledgeGraphStore> {
  let resolved: StoreTarget;
  try {
    resolved = typeof target === 'string' ? parseStoreUrl(target) : target;
  } catch (error) {
    throw new StoreOpenError(errorText(error), true, { cause: error });
  }
  if (options.mustExist && resolved.kind === 'sqlite') {
    const file = sqliteFile(resolved);
    if (file !== ':memory:' && !existsSync(file)) {
      throw new StoreNotFoundError(`no store at ${file}: nothing has been ingested there yet (mce ingest FILE…), or the path is misspelt`);
    }
  }
  // "file is not a database", "ECONNREFUSED": said of which store, so the user knows which setting to fix.
  // A SQLite file that cannot be opened is the user's input (a wrong path, not a database); one that another process
  // keeps locked is not.
  const cannotOpen = (error: unknown) =>
    new StoreOpenError(`cannot open the store ${shownUrl(resolved.url)}: ${errorText(error)}`, resolved.kind === 'sqlite' && !isStoreLocked(error), {
      cause: error,
    });
  let store: KnowledgeGraphStore;
  try {
    store = await createStore(resolved, options);
  } catch (error) {
    throw cannotOpen(error);
  }
  if (options.mustExist && store.kind === 'postgres') await mustHaveTables(store as PostgresStore, resolved.url, cannotOpen);
  try {
    await store.init();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw cannotOpen(error);
  }
  return store;
}

/** A PostgreSQL schema without the store's tables is no store to read (a misspelt `schema=` would answer empty). */
async function mustHaveTables(store: PostgresStore, url: string, cannotOpen: (error: unknown) => Error): Promise<void> {
  let exists: boolean;
  try {
    exists = await store.exists();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw cannotOpen(error);
  }
  if (exists) return;
  await store.close();
  throw new StoreNotFoundError(`no store in PostgreSQL schema ${store.schemaName} at ${shownUrl(url)}: nothing has been ingested there yet, or schema= is misspelt`);
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The URL with its password and secret query parameters replaced by `***`. */
export function shownUrl(url: string): string {
  return url.startsWith('sqlite:') ? url : redactUrl(url);
}

/** The store the environment selects (`MCE_STORE_URL`, the Neo4j variables, else `sqlite:.mce/mce.db`). */
export function openStoreFromEnv(env: Record<string, string | undefined> = process.env, options: OpenStoreOptions = {}) {
  return openStore(storeTargetFromEnv(env), options);
}

/**
 * The store of a target. The PostgreSQL and Neo4j drivers are loaded only when one is opened: loading them costs every
 * `mce` command about half a second of CPU and 30 MB (neo4j-driver brings rxjs), for a store most runs do not use.
 */
async function createStore(target: StoreTarget, options: OpenStoreOptions): Promise<KnowledgeGraphStore> {
  const logger = options.logger ? { logger: options.logger } : {};
  switch (target.kind) {
    case 'sqlite':
      return new SqliteStore(sqliteFile(target), logger);
    case 'postgres': {
      const { PostgresStore } = await import('./postgres/postgres-store.js');
      return new PostgresStore(target.url, { ...logger, schema: options.schema ?? target.schema, maxConnections: options.maxConnections });
    }
    case 'neo4j': {
      const { Neo4jStore } = await import('./neo4j/neo4j-store.js');
      return new Neo4jStore(target, { ...logger, ...options.neo4j });
    }
  }
}

