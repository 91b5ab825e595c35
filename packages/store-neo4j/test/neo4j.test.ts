/**
 * The conformance suite on a live Neo4j 5 server, when `NEO4J_URI` is set (credentials from NEO4J_USERNAME /
 * NEO4J_PASSWORD, database from NEO4J_DATABASE). WARNING: every test deletes the mce nodes (Session, Call,
 * MCPServer, Metric, MetricResult) of that database first: point it at a scratch database.
 */
import { describe } from 'vitest';
import neo4j from 'neo4j-driver';
import { openStore, storeTargetFromEnv } from '@mce/store';
import { storeConformance } from '@mce/store/conformance';

const uri = process.env.NEO4J_URI;
if (!uri) console.warn('\n⚠ SKIPPED: NEO4J_URI is not set: the Neo4j conformance suite is skipped\n');

async function wipe(): Promise<void> {
  const target = storeTargetFromEnv({ ...process.env, MCE_STORE_URL: undefined });
  const auth = target.username ? neo4j.auth.basic(target.username, target.password ?? '') : undefined;
  const driver = neo4j.driver(target.url, auth);
  const session = driver.session(target.database ? { database: target.database } : {});
  try {
    await session.executeWrite((tx) =>
      tx.run('MATCH (n) WHERE n:Session OR n:Call OR n:MCPServer OR n:Metric OR n:MetricResult DETACH DELETE n'),
    );
  } finally {
    await session.close();
    await driver.close();
  }
}

describe.skipIf(!uri)('Neo4j store (live server)', () => {
  storeConformance('Neo4j', {
    open: async (logger) => {
      const store = await openStore(storeTargetFromEnv({ ...process.env, MCE_STORE_URL: undefined }), { logger });
      await wipe();
      return store;
    },
  });
});
