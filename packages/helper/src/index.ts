export type * from './types.js';
export { defineMetric, defineProvider, skip, type MetricDefinition, type ProviderDefinition } from './define.js';
