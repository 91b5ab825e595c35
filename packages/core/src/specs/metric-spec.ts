import type { MetricMetadata } from '../contracts/metric.js';

/**
 * The ontological identity of a catalog metric: the same fields as `MetricMetadata`, as pure data, whether or not a
 * provider implements the metric yet (`mce metric list --abstract` shows them all).
 */
export type MetricSpec = MetricMetadata;
