import { describe, expect, it } from 'vitest';
import type { MetricMetadata, PortableMetricRef } from '@mce/core';
import { SpecRegistry } from '@mce/core';
import * as nativePackage from '../../src/index.js';
import { DETERMINISTIC_METRICS, NATIVE_PROVIDER_REF, defaultMetricSelection, nativeProvider } from '../../src/index.js';

const NAMES = [
  'Duration',
  'PromptTokens',
  'CompletionTokens',
  'TotalTokens',
  'Cost',
  'LLMCallCount',
  'ToolCallCount',
  'AgentCallCount',
  'ToolErrorRate',
  'LLMErrorRate',
  'CyclesCount',
  'AgentToAgentInteractions',
  'AgentToToolInteractions',
  'WorkflowEfficiency',
  'MeanLLMCallDuration',
  'P95LLMCallDuration',
  'MeanToolCallDuration',
];

describe('deterministic catalog', () => {
  it('lists every deterministic metric once, provider mce', () => {
    expect(DETERMINISTIC_METRICS.map((m) => m.metadata.name)).toEqual(NAMES);
    for (const m of DETERMINISTIC_METRICS) {
      expect(m.metadata.provider).toBe('mce');
      expect(m.metadata.description.length).toBeGreaterThan(40);
      expect(['deterministic', 'aggregate']).toContain(m.metadata.nature);
    }
  });

  it('gives every metric a portable ref to its own export of @mce/provider-native', () => {
    const exports = nativePackage as unknown as Record<string, unknown>;
    for (const m of DETERMINISTIC_METRICS) {
      expect(m.portable).toEqual({ module: '@mce/provider-native', exportName: m.metadata.name });
      expect(exports[m.portable.exportName]).toBe(m);
    }
    const ref: PortableMetricRef = NATIVE_PROVIDER_REF;
    expect(exports[ref.exportName]).toBe(nativeProvider);
  });

  it('the provider mce lists the deterministic metrics', () => {
    expect(nativeProvider.name).toBe('mce');
    const names = nativeProvider.metrics().map((m) => m.metadata.name);
    for (const name of NAMES) expect(names).toContain(name);
  });

  it('the default selection puts each metric at the levels it is defined for', () => {
    const selection = defaultMetricSelection();
    expect(selection.Session).toEqual(NAMES);
    const upper = ['Duration', 'PromptTokens', 'CompletionTokens', 'TotalTokens', 'Cost', 'LLMCallCount', 'ToolCallCount', 'AgentCallCount', 'ToolErrorRate', 'LLMErrorRate'];
    expect(selection.MASCall).toEqual(upper);
    expect(selection.AgentCall).toEqual([...upper, 'CyclesCount']);
    expect(selection.TaskCall).toEqual(['Duration']);
    expect(selection.LLMCall).toEqual(['Duration', 'PromptTokens', 'CompletionTokens', 'TotalTokens', 'Cost']);
    expect(selection.ToolCall).toEqual(['Duration']);
    selection.Session.pop();
    expect(defaultMetricSelection().Session).toHaveLength(NAMES.length);
  });
});

describe('agreement with the core spec catalog', () => {
  it('each metric has the levels, nature, unit, range, dependencies and options (none) its SpecRegistry entry announces', () => {
    const specs = new SpecRegistry();
    for (const m of DETERMINISTIC_METRICS) {
      const spec = specs.get(`mce:${m.metadata.name}`);
      expect(spec, m.metadata.name).toBeDefined();
      const pick = (x: MetricMetadata) => ({
        levels: [...x.levels].sort(),
        nature: x.nature,
        unit: x.unit,
        valueRange: x.valueRange,
        dependsOn: [...x.dependsOn],
        options: x.options,
      });
      expect(pick(m.metadata), m.metadata.name).toEqual(pick(spec!));
      expect(m.metadata.options, m.metadata.name).toEqual([]);
    }
  });
});
