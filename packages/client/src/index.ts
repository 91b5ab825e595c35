export * from './store/index.js';
export * from './ingest/index.js';
export * from './cache/index.js';
export * from './config/index.js';
export * from './mce-client.js';
export * from './worker-service.js';
export * from './api/app.js';
export * from './api/server.js';
export { main as runCli } from './cli/main.js';
