export * from './store/index.js';
export * from './ingest/index.js';
export * from './cache/index.js';
