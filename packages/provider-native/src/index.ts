export * from './judge/index.js';
export * from './metrics/llm/index.js';
export { MemoryCacheManager } from './cache/memory-cache-manager.js';
export * from './prices/index.js';
export * from './metrics/deterministic/index.js';
export { DETERMINISTIC_METRICS, defaultMetricSelection } from './metrics/deterministic/catalog.js';
export { nativeProvider, NATIVE_PROVIDER_REF } from './native-provider.js';
export * from './mcp/index.js';
export { catalogMarkdown } from './catalog-doc.js';
