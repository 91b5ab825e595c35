export { legacyRoutes, type LegacyAppOptions } from './app.js';
export { ApiLayer, ApiLayerError, metricPayload, type ApiLayerOptions } from './api-layer.js';
export { computeLegacy, resolveMetrics, DEFAULT_SETTINGS, type LegacyDeps, type LegacySettings, type LegacyAnswer } from './compute.js';
export { legacyMetricListing, type LegacyMetricListing, type LegacyMetricInfo } from './listing.js';
export { LEGACY_NAMES, ADAPTER_PACKAGES, resolveLegacyName, type LegacyTarget } from './metric-names.js';
export { parseLegacyRequest, legacyRequestSchema, DEFAULT_LEGACY_METRICS, INVALID_CONFIGURATION, type LegacyRequest } from './request.js';
export * from './response.js';
export { sessionEdges, graphDeterminism } from './graph-determinism.js';
export { storeSource, storeSink, type SessionSource, type ResultSink, type BatchQuery } from './sources.js';
