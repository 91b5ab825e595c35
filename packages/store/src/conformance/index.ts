/**
 * The conformance suite every store passes (SQLite, PostgreSQL, Neo4j), for adapter authors: call
 * `storeConformance(name, factory)` inside a vitest test file. vitest is an optional peer of this package.
 */
export { storeConformance, type StoreFactory } from './suite.js';
export * from './sessions.js';
