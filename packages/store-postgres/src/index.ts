import type { KnowledgeGraphStore, OpenStoreOptions, StoreTarget } from '@mce/store';
import { PostgresStore } from './postgres-store.js';

export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';

/** The adapter entry `openStore` loads for `postgres://` URLs. */
export function createStore(target: StoreTarget, options: OpenStoreOptions): KnowledgeGraphStore {
  return new PostgresStore(target.url, {
    ...(options.logger ? { logger: options.logger } : {}),
    schema: options.schema ?? target.schema,
    maxConnections: options.maxConnections,
  });
}
