/**
 * The parts every store adapter shares (@mce/store's own SQLite store, @mce/store-postgres, @mce/store-neo4j): how a
 * session becomes rows and back, how results are validated and split, how a result query is planned, the summaries'
 * statistics and the id checks. For adapter authors; an application uses the main entry point.
 */
export * from './rows.js';
export * from './results.js';
export * from './result-query.js';
export * from './result-summary.js';
export * from './storable-ids.js';
export * from './logger.js';
export * from './session-counts.js';
