/**
 * `GET /metrics` in the old shape: `{ total_metrics, native_metrics, plugin_metrics, metrics: { native, plugins } }`.
 * The old native and plugin names come first (as the old API listed them, `Cycles` for CyclesCount); mce's other
 * native metrics follow under their own names, and the provider packages' metrics under their `provider.Name`
 * spelling, which `/compute_metrics` accepts.
 */
import type { Metric, MetricRegistry } from '@mce/core';
import { LEGACY_NAMES } from './metric-names.js';

export interface LegacyMetricInfo {
  name: string;
  class: string;
  module: string;
  aggregation_level: string;
  supports_agent_computation: boolean;
  description: string;
  required_parameters: string[];
  source: 'native' | 'plugin';
}

export interface LegacyMetricListing {
  total_metrics: number;
  native_metrics: number;
  plugin_metrics: number;
  metrics: { native: Record<string, LegacyMetricInfo>; plugins: Record<string, LegacyMetricInfo> };
}

/** The old engine's own metrics, by old name; the plugin's judged metrics and WorkflowEfficiency are "plugin". */
const OLD_NATIVE = new Set(['AgentToAgentInteractions', 'AgentToToolInteractions', 'Cycles', 'ToolErrorRate', 'ToolUtilizationAccuracy', 'GraphDeterminismScore']);

function infoOf(name: string, metric: Metric, source: 'native' | 'plugin'): LegacyMetricInfo {
  const levels = metric.metadata.levels;
  return {
    name,
    class: metric.metadata.name,
    module: `mce:${metric.metadata.provider}`,
    aggregation_level: levels.includes('Session') ? 'session' : levels.some((l) => l === 'LLMCall' || l === 'ToolCall') ? 'span' : 'session',
    supports_agent_computation: levels.includes('AgentCall'),
    description: metric.metadata.description,
    required_parameters: [...metric.metadata.requirements],
    source,
  };
}

const GRAPH_DETERMINISM: LegacyMetricInfo = {
  name: 'GraphDeterminismScore',
  class: 'GraphDeterminismScore',
  module: 'mce:legacy',
  aggregation_level: 'population',
  supports_agent_computation: false,
  description: "Mean size of the symmetric difference of the sessions' agent/tool edge sets over every pair of sessions (higher: less deterministic)",
  required_parameters: ['agentCalls.agentName', 'toolCalls.toolName', 'startTime'],
  source: 'native',
};

/** The listing of a registry: an MCEClient's (`client.engine.registry`), or the catalog `mce-cli list-metrics` builds. */
export function legacyMetricListing(registry: MetricRegistry): LegacyMetricListing {
  const native: Record<string, LegacyMetricInfo> = {};
  const plugins: Record<string, LegacyMetricInfo> = {};
  const listed = new Set<string>();
  for (const [oldName, target] of Object.entries(LEGACY_NAMES)) {
    if (oldName === 'CyclesCount') continue; // listed as Cycles, as the old API named it
    if (target.kind === 'population') {
      native[oldName] = GRAPH_DETERMINISM;
      continue;
    }
    if (target.kind !== 'mce') continue;
    const entry = registry.find(target.name);
    if (!entry) continue;
    listed.add(entry.key);
    const source = OLD_NATIVE.has(oldName) ? 'native' : 'plugin';
    (source === 'native' ? native : plugins)[oldName] = infoOf(oldName, entry.metric, source);
  }
  for (const entry of registry.list()) {
    if (listed.has(entry.key)) continue;
    const { provider, name } = entry.metric.metadata;
    if (provider === 'mce') native[name] = infoOf(name, entry.metric, 'native');
    else plugins[`${provider}.${name}`] = infoOf(`${provider}.${name}`, entry.metric, 'plugin');
  }
  const n = Object.keys(native).length;
  const p = Object.keys(plugins).length;
  return { total_metrics: n + p, native_metrics: n, plugin_metrics: p, metrics: { native, plugins } };
}
