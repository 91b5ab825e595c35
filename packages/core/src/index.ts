export * from './ontology/types.js';
export * from './ontology/metric-result.js';
export * from './ontology/schemas.js';
export * from './contracts/metric.js';
export * from './contracts/provider.js';
export * from './contracts/cache.js';
export * from './engine/output.js';
