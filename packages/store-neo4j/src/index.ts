import type { KnowledgeGraphStore, OpenStoreOptions, StoreTarget } from '@mce/store';
import type { Neo4jDriverLike } from './driver.js';
import { Neo4jStore } from './neo4j-store.js';

export { Neo4jStore, type Neo4jStoreOptions } from './neo4j-store.js';
export type { Neo4jDriverLike, Neo4jSessionLike, CypherTransactionLike, CypherResultLike, CypherRecordLike, Neo4jTarget } from './driver.js';

/** The adapter entry `openStore` loads for `neo4j://` and `bolt://` URLs. */
export function createStore(target: StoreTarget, options: OpenStoreOptions): KnowledgeGraphStore {
  const { driver, ...neo4j } = options.neo4j ?? {};
  return new Neo4jStore(target, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...neo4j,
    ...(driver ? { driver: driver as Neo4jDriverLike } : {}),
  });
}
