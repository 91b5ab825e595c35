export * from './sqlite-cache-manager.js';
export * from './open-metric-cache.js';
