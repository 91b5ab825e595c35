import { describe, expect, it } from 'vitest';
import type { ExecutionPlan } from '@mce/core';
import {
  DependencyCycleError,
  MetricRegistry,
  MetricSelectionError,
  TopologicalScheduler,
  UnknownDependencyError,
} from '@mce/core';
import { constant, metric } from './helpers/metrics.js';

const stages = (plan: ExecutionPlan) => plan.stages.map((s) => s.map((t) => `${t.entry.metric.metadata.name}@${t.level}`));

function registryOf(...defs: Array<[string, string[], string[]?]>): MetricRegistry {
  const registry = new MetricRegistry();
  for (const [name, levels, dependsOn = []] of defs) {
    registry.register(metric(name, levels as never, constant(1), { dependsOn }));
  }
  return registry;
}

describe('TopologicalScheduler', () => {
  it('runs an aggregate after its dependency, computed at every level the dependency supports', () => {
    const registry = registryOf(['Dur', ['Session', 'LLMCall', 'ToolCall']], ['MeanDur', ['Session'], ['Dur']], ['Count', ['Session']]);
    const plan = new TopologicalScheduler(registry).plan([
      { metric: 'MeanDur', level: 'Session' },
      { metric: 'Count', level: 'Session' },
    ]);
    expect(stages(plan)).toEqual([['Count@Session', 'Dur@Session', 'Dur@LLMCall', 'Dur@ToolCall'], ['MeanDur@Session']]);
    expect(plan.stages[0]!.map((t) => t.requested)).toEqual([true, false, false, false]);
    expect([...plan.dependencyKeys]).toEqual(['test:Dur']);
  });

  it('keeps a selected dependency once and layers chains by depth', () => {
    const registry = registryOf(['A', ['Session', 'AgentCall']], ['B', ['Session'], ['A']], ['C', ['Session'], ['B', 'A']]);
    const plan = new TopologicalScheduler(registry).plan([
      { metric: 'C', level: 'Session' },
      { metric: 'A', level: 'AgentCall' },
      { metric: 'A', level: 'AgentCall' },
    ]);
    expect(stages(plan)).toEqual([['A@AgentCall', 'A@Session'], ['B@Session'], ['C@Session']]);
  });

  it('plans a layered graph (each metric needing both of the layer before) in linear time, each task once', () => {
    const defs: Array<[string, string[], string[]?]> = [['A0', ['Session']], ['B0', ['Session']]];
    for (let i = 1; i < 27; i++) defs.push([`A${i}`, ['Session'], [`A${i - 1}`, `B${i - 1}`]], [`B${i}`, ['Session'], [`A${i - 1}`, `B${i - 1}`]]);
    // 2^27 paths: re-walking them took about 20 s (10 s at 26 layers); each metric's dependencies are added once.
    const plan = new TopologicalScheduler(registryOf(...defs)).plan([{ metric: 'A26', level: 'Session' }]);
    expect(plan.stages).toHaveLength(27);
    expect(plan.stages.flat()).toHaveLength(53); // A26 and both metrics of the 26 layers below
  }, 5000); // a bound (planning takes milliseconds) that the exponential walk could not meet

  it('names the cycle', () => {
    const registry = registryOf(['A', ['Session'], ['B']], ['B', ['Session'], ['A']]);
    const run = () => new TopologicalScheduler(registry).plan([{ metric: 'A', level: 'Session' }]);
    expect(run).toThrow(DependencyCycleError);
    expect(run).toThrow('Dependency cycle between metrics: test:A -> test:B -> test:A');
  });

  it('names a longer cycle reached through a dependency, and a self-dependency', () => {
    const registry = registryOf(['X', ['Session'], ['A']], ['A', ['Session'], ['B']], ['B', ['Session'], ['C']], ['C', ['Session'], ['A']], ['S', ['Session'], ['S']]);
    const scheduler = new TopologicalScheduler(registry);
    expect(() => scheduler.plan([{ metric: 'X', level: 'Session' }])).toThrow(
      'Dependency cycle between metrics: test:A -> test:B -> test:C -> test:A',
    );
    expect(() => scheduler.plan([{ metric: 'S', level: 'Session' }])).toThrow('Dependency cycle between metrics: test:S -> test:S');
  });

  it('rejects an unknown dependency', () => {
    const registry = registryOf(['Agg', ['Session'], ['Missing']]);
    const run = () => new TopologicalScheduler(registry).plan([{ metric: 'Agg', level: 'Session' }]);
    expect(run).toThrow(UnknownDependencyError);
    expect(run).toThrow('Metric "test:Agg" depends on "Missing", which is not registered');
  });

  it('rejects unknown metrics and unsupported levels, all at once', () => {
    const registry = registryOf(['A', ['Session']]);
    const run = () =>
      new TopologicalScheduler(registry).plan([
        { metric: 'A', level: 'ToolCall' },
        { metric: 'Nope', level: 'Session' },
      ]);
    expect(run).toThrow(MetricSelectionError);
    expect(run).toThrow(
      'Invalid metric selection:\n- Metric "test:A" does not support level ToolCall (it supports Session)\n- Unknown metric "Nope" selected at Session',
    );
  });

  it('resolves dependencies by provider first, and qualified names', () => {
    const registry = new MetricRegistry();
    registry.register(metric('D', ['Session'], constant(1)));
    registry.register(metric('D', ['Session'], constant(2), { provider: 'other' }));
    registry.register(metric('Agg', ['Session'], constant(3), { dependsOn: ['D'] }));
    registry.register(metric('Agg2', ['Session'], constant(3), { provider: 'x', dependsOn: ['other:D'] }));
    const plan = new TopologicalScheduler(registry).plan([
      { metric: 'test:Agg', level: 'Session' },
      { metric: 'Agg2', level: 'Session' },
    ]);
    expect(plan.stages.map((s) => s.map((t) => `${t.entry.key}@${t.level}`))).toEqual([
      ['test:D@Session', 'other:D@Session'],
      ['test:Agg@Session', 'x:Agg2@Session'],
    ]);
    expect(() => registry.get('D')).toThrow('Metric name "D" is ambiguous: use one of "test:D", "other:D"');
  });
});
