import { describe, expect, it } from 'vitest';
import type { MetricProvider } from '@mce/core';
import { MetricEngine, MetricRegistry } from '@mce/core';
import { constant, metric } from './helpers/metrics.js';

const provider = (name: string, ...names: string[]): MetricProvider => ({
  name,
  description: `${name} metrics`,
  version: '1.2.3',
  metrics: () => names.map((n) => metric(n, ['Session'], constant(1), { provider: name })),
});

describe('MetricRegistry', () => {
  it('registers providers and metrics, looks them up by name or provider:name, lists providers', () => {
    const registry = new MetricRegistry();
    registry.registerProvider(provider('mce', 'Duration', 'Cost'), { module: '@x/y', exportName: 'p' });
    registry.register(metric('Extra', ['Session'], constant(2)));
    expect(registry.list().map((m) => m.key)).toEqual(['mce:Duration', 'mce:Cost', 'test:Extra']);
    expect(registry.get('Cost')?.key).toBe('mce:Cost');
    expect(registry.get('mce:Cost')?.portableRef).toEqual({ module: '@x/y', exportName: 'p' });
    expect(registry.get('Extra')?.portableRef).toBeUndefined();
    expect(registry.get('Nope')).toBeUndefined();
    expect([registry.has('Duration'), registry.has('mce:Duration'), registry.has('other:Duration')]).toEqual([true, true, false]);
    expect(registry.listProviders()).toEqual([
      { name: 'mce', description: 'mce metrics', version: '1.2.3', metrics: ['Duration', 'Cost'] },
    ]);
    expect(registry.getProvider('mce')?.version).toBe('1.2.3');
  });

  it('rejects duplicates and a provider listing another provider’s metric', () => {
    const registry = new MetricRegistry();
    registry.registerProvider(provider('mce', 'Duration'));
    expect(() => registry.register(metric('Duration', ['Session'], constant(1), { provider: 'mce' }))).toThrow(
      'Metric "mce:Duration" is already registered',
    );
    expect(() => registry.registerProvider(provider('mce', 'Other'))).toThrow('Provider "mce" is already registered');
    const liar: MetricProvider = { ...provider('a'), metrics: () => [metric('X', ['Session'], constant(1), { provider: 'b' })] };
    expect(() => registry.registerProvider(liar)).toThrow('Provider "a" lists metric "b:X" of another provider (metadata.provider)');
    expect(registry.has('b:X')).toBe(false);
  });

  it('is what the engine registers into', () => {
    const engine = new MetricEngine();
    engine.registerProvider(provider('p', 'A'));
    engine.registerMetric(metric('B', ['Session'], constant(1)));
    expect(engine.registry.list().map((m) => m.key)).toEqual(['p:A', 'test:B']);
    expect(engine.plan({ metrics: ['A', 'B'] }).stages.map((s) => s.map((t) => t.entry.key))).toEqual([['p:A', 'test:B']]);
  });

  it('replaces a provider by one listing the same metrics (a catalogue swapped for the code), and refuses another list', () => {
    const registry = new MetricRegistry();
    registry.registerProvider(provider('p', 'A', 'B'));
    const metrics = ['A', 'B'].map((n) => metric(n, ['Session'], constant(7), { provider: 'p' }));
    const code: MetricProvider = { ...provider('p'), version: '2.0.0', jsonDetails: true, metrics: () => metrics };
    registry.replaceProvider(code);
    expect(registry.getProvider('p')?.version).toBe('2.0.0');
    expect(registry.get('p:A')?.metric).toBe(metrics[0]);
    expect(registry.get('B')?.jsonDetails).toBe(true);
    expect(() => registry.replaceProvider(provider('p', 'A'))).toThrow('Provider "p" lists the metrics p:A, not p:A, p:B');
    expect(() => registry.replaceProvider(provider('q', 'A'))).toThrow('Provider "q" is not registered');
    expect(registry.getProvider('p')?.version).toBe('2.0.0');
  });
});
