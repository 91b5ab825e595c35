import type { Metric, MetricProvider, PortableMetricRef } from '@mce/core';
import { DETERMINISTIC_METRICS } from './metrics/deterministic/catalog.js';
import { NATIVE_MODULE, NATIVE_PROVIDER } from './metrics/deterministic/define.js';
import { releaseSessionCache } from './metrics/deterministic/session-cache.js';
import { LLM_JUDGED_METRICS } from './metrics/llm/catalog.js';
import { MCP_METRICS } from './mcp/metrics.js';
import { packageVersion } from './package-version.js';

/**
 * Every metric this package implements. The LLM-judged and MCP metrics join this list here (not by registration at
 * run time), so a worker thread importing the package sees the same catalog as the main thread.
 */
const NATIVE_METRICS: readonly Metric[] = Object.freeze([...DETERMINISTIC_METRICS, ...LLM_JUDGED_METRICS, ...MCP_METRICS]);

/** The built-in provider `mce`. */
export const nativeProvider: MetricProvider = Object.freeze({
  name: NATIVE_PROVIDER,
  description:
    'Built-in mce metrics: deterministic (duration, tokens, cost, call counts, error rates, cycles, agent ' +
    'interactions), LLM-judged and MCP',
  version: packageVersion(new URL('../package.json', import.meta.url)),
  metrics: () => NATIVE_METRICS,
  // Its details are built from numbers, strings and plain objects: the engine need not check each record's.
  jsonDetails: true,
  releaseSession: releaseSessionCache,
});

/** How a worker thread or child process loads the whole provider (`MetricRegistry.registerProvider(p, ref)`). */
export const NATIVE_PROVIDER_REF: PortableMetricRef = Object.freeze({ module: NATIVE_MODULE, exportName: 'nativeProvider' });
