import { MceError, isStoreLocked, redactUrl, type ErrorKind } from '@mce/core';
import { existsSync } from 'node:fs';
import { loadStoreAdapter, StoreAdapterMissingError } from './adapters.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { KnowledgeGraphStore, StoreLogger } from './types.js';
import { parseStoreUrl, sqliteFile, storeTargetFromEnv, type StoreTarget } from './url.js';

export interface OpenStoreOptions {
  logger?: StoreLogger;
  /** PostgreSQL only: schema (search_path) the tables live in. */
  schema?: string;
  /** PostgreSQL only: pool size. */
  maxConnections?: number;
  /** Neo4j only: rows per UNWIND batch, database, or an injected driver (see `Neo4jStoreOptions` of @mce/store-neo4j). */
  neo4j?: { database?: string; batchSize?: number; driver?: unknown };
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
    if (error instanceof StoreAdapterMissingError) throw error;
    throw cannotOpen(error);
  }
  if (options.mustExist && store.exists) await mustHaveTables(store, resolved.url, cannotOpen);
  try {
    await store.init();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw cannotOpen(error);
  }
  return store;
}

/** A database without the store's tables is no store to read (a misspelt PostgreSQL `schema=` would answer empty). */
async function mustHaveTables(store: KnowledgeGraphStore, url: string, cannotOpen: (error: unknown) => Error): Promise<void> {
  let exists: boolean;
  try {
    exists = (await store.exists?.()) ?? true;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw cannotOpen(error);
  }
  if (exists) return;
  await store.close();
  const { where, setting } = store.location ?? { where: 'the database', setting: 'its name' };
  throw new StoreNotFoundError(`no store in ${where} at ${shownUrl(url)}: nothing has been ingested there yet, or ${setting} is misspelt`);
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
 * The store of a target. PostgreSQL and Neo4j are packages of their own (@mce/store-postgres, @mce/store-neo4j),
 * loaded only when one is opened: a SQLite user installs no network driver, and no command pays for loading one.
 */
async function createStore(target: StoreTarget, options: OpenStoreOptions): Promise<KnowledgeGraphStore> {
  if (target.kind === 'sqlite') return new SqliteStore(sqliteFile(target), options.logger ? { logger: options.logger } : {});
  const adapter = await loadStoreAdapter(target.kind);
  return adapter.createStore(target, options);
}
