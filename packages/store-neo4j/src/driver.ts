/**
 * The slice of `neo4j-driver` the Neo4j store uses, as interfaces: the real driver fits them, and tests inject a
 * recorder that captures every `run(cypher, params)`. One real driver per process and target (drivers pool their
 * own connections and are meant to be shared); closed when the last store using it closes.
 */
import neo4j from 'neo4j-driver';

export interface CypherRecordLike {
  toObject(): Record<string, unknown>;
}
export interface CypherResultLike {
  records: CypherRecordLike[];
}
export interface CypherTransactionLike {
  run(cypher: string, params?: Record<string, unknown>): Promise<CypherResultLike>;
}
export interface Neo4jSessionLike {
  executeRead<T>(work: (tx: CypherTransactionLike) => Promise<T>): Promise<T>;
  executeWrite<T>(work: (tx: CypherTransactionLike) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
export interface Neo4jDriverLike {
  session(config?: { database?: string; bookmarkManager?: unknown }): Neo4jSessionLike;
  /** Fails at once when the server cannot be reached (a transaction would retry for half a minute first). */
  verifyConnectivity?(config?: { database?: string }): Promise<unknown>;
  close(): Promise<void>;
}

export interface Neo4jTarget {
  url: string;
  username?: string;
  password?: string;
  database?: string;
}

const shared = new Map<string, { driver: Neo4jDriverLike; users: number }>();

const keyOf = (t: Neo4jTarget) => JSON.stringify([t.url, t.username ?? '']);

/** The process-wide driver for this target (created on first use). Pair every call with `releaseDriver`. */
export function acquireDriver(target: Neo4jTarget): Neo4jDriverLike {
  const key = keyOf(target);
  let entry = shared.get(key);
  if (!entry) {
    const auth = target.username ? neo4j.auth.basic(target.username, target.password ?? '') : undefined;
    // 10 s to connect (the driver's default is 30): a store that is not there is said so sooner.
    const driver = neo4j.driver(target.url, auth, { userAgent: 'mce', connectionTimeout: 10_000 }) as unknown as Neo4jDriverLike;
    entry = { driver, users: 0 };
    shared.set(key, entry);
  }
  entry.users += 1;
  return entry.driver;
}

export async function releaseDriver(target: Neo4jTarget): Promise<void> {
  const key = keyOf(target);
  const entry = shared.get(key);
  if (!entry) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  shared.delete(key);
  await entry.driver.close();
}
