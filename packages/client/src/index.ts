export * from './store/index.js';
export * from './ingest/index.js';
