import { describe, expect, it } from 'vitest';
import type { Metric } from '@mce/core';
import { MCE_CATALOG, MetricRegistry, SpecRegistry } from '@mce/core';

const NAMES = [
  'Duration', 'PromptTokens', 'CompletionTokens', 'TotalTokens', 'Cost', 'LLMCallCount', 'ToolCallCount',
  'AgentCallCount', 'ToolErrorRate', 'LLMErrorRate', 'CyclesCount', 'AgentToAgentInteractions',
  'AgentToToolInteractions', 'WorkflowEfficiency', 'MeanLLMCallDuration', 'P95LLMCallDuration', 'MeanToolCallDuration',
  'AnswerRelevancy', 'Groundedness', 'IntentRecognitionAccuracy', 'TaskCompletion', 'ToolUtilizationAccuracy',
  'MeanToolUtilizationAccuracy', 'GoalSuccessRate', 'ResponseCompleteness', 'Consistency', 'ContextPreservation',
  'InformationRetention', 'WorkflowCohesionIndex', 'ComponentConflictRate', 'MCPUse', 'MultiTurnMCPUse',
  'MCPTaskCompletion',
];

describe('SpecRegistry', () => {
  const specs = new SpecRegistry();

  it('lists the whole mce catalog, in order, all from provider mce', () => {
    expect(specs.list().map((s) => s.name)).toEqual(NAMES);
    expect(new Set(specs.list().map((s) => s.provider))).toEqual(new Set(['mce']));
    expect(MCE_CATALOG).toHaveLength(33);
  });

  it('describes levels, nature, unit, range and dependencies', () => {
    expect(specs.get('Duration')).toMatchObject({
      levels: ['Session', 'MASCall', 'AgentCall', 'TaskCall', 'LLMCall', 'ToolCall'],
      nature: 'deterministic',
      unit: 'ms',
      dependsOn: [],
    });
    expect(specs.get('mce:Cost')).toMatchObject({ levels: ['LLMCall', 'AgentCall', 'MASCall', 'Session'], unit: 'USD' });
    expect(specs.get('ToolErrorRate')).toMatchObject({ levels: ['Session', 'MASCall', 'AgentCall'], unit: '%', valueRange: '0-100' });
    expect(specs.get('CyclesCount')?.levels).toEqual(['Session', 'AgentCall']);
    expect(specs.get('WorkflowEfficiency')).toMatchObject({ levels: ['Session'], valueRange: '0.0-1.0' });
    expect(specs.get('P95LLMCallDuration')).toMatchObject({ nature: 'aggregate', levels: ['Session'], dependsOn: ['Duration'] });
    expect(specs.get('MeanToolUtilizationAccuracy')).toMatchObject({
      nature: 'aggregate',
      dependsOn: ['ToolUtilizationAccuracy'],
    });
    expect(specs.get('ToolUtilizationAccuracy')).toMatchObject({ levels: ['ToolCall'], nature: 'llm-judged' });
    expect(specs.get('AnswerRelevancy')?.levels).toEqual(['Session', 'AgentCall', 'LLMCall']);
    expect(specs.get('TaskCompletion')?.levels).toEqual(['Session', 'AgentCall', 'TaskCall']);
    expect(specs.get('MultiTurnMCPUse')).toMatchObject({ levels: ['Session'], nature: 'llm-judged', unit: 'dimensionless' });
    for (const spec of specs.list().filter((s) => s.nature === 'llm-judged')) expect(spec.valueRange).toBe('0.0-1.0');
    expect(specs.get('NoSuchMetric')).toBeUndefined();
  });

  it('every dependency names a metric of the catalog', () => {
    for (const spec of specs.list()) for (const dep of spec.dependsOn) expect(specs.has(dep)).toBe(true);
  });

  it('tells which specs the registered metrics implement', () => {
    const registry = new MetricRegistry();
    const duration: Metric = { metadata: specs.get('Duration')!, compute: (e) => ({ value: e.endTime - e.startTime }) };
    registry.register(duration);
    const status = specs.status(registry);
    expect(status.filter((s) => s.implemented).map((s) => s.spec.name)).toEqual(['Duration']);
    expect(status).toHaveLength(33);
    expect(specs.isImplemented('Duration', registry)).toBe(true);
    expect(specs.isImplemented('Cost', registry)).toBe(false);
  });

  it('rejects a duplicate spec', () => {
    expect(() => new SpecRegistry([...MCE_CATALOG, MCE_CATALOG[0]!])).toThrow('Metric spec "mce:Duration" is already in the catalog');
  });
});
