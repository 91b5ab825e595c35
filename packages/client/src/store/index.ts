export * from './types.js';
export { mergeSessions, mergeSessionHeader, coalesceSessions, sessionHeader, type SessionHeader } from '../ingest/merge.js';
export { openStore, openStoreFromEnv, StoreNotFoundError, StoreOpenError, type OpenStoreOptions } from './open.js';
export { storeUrlFromEnv, storeTargetFromEnv, parseStoreUrl, DEFAULT_STORE_URL, type StoreTarget } from './url.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js';
export { Neo4jStore, type Neo4jStoreOptions } from './neo4j/neo4j-store.js';
export type {
  Neo4jDriverLike,
  Neo4jSessionLike,
  CypherTransactionLike,
  CypherResultLike,
  CypherRecordLike,
  Neo4jTarget,
} from './neo4j/driver.js';
