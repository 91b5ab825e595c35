import { describe, expect, it } from 'vitest';
import { MetricEngine, MetricRegistry, aliasKeys } from '@mce/core';
import { metric } from './helpers/metrics.js';
import { sampleSession } from './helpers/sessions.js';

describe('telemetry-hub metric names', () => {
  it('aliasKeys: provider.ClassName[.part] → provider:ClassName, then without Metric / Score', () => {
    expect(aliasKeys('deepeval.AnswerRelevancyMetric')).toEqual(['deepeval:AnswerRelevancyMetric', 'deepeval:AnswerRelevancy']);
    expect(aliasKeys('ragas.TopicAdherenceScore.f1')).toEqual(['ragas:TopicAdherenceScore', 'ragas:TopicAdherence']);
    expect(aliasKeys('opik.Hallucination')).toEqual(['opik:Hallucination']);
    expect(aliasKeys('Duration')).toEqual([]);
    expect(aliasKeys('mce:Duration')).toEqual([]);
    expect(aliasKeys('a.b.c.d')).toEqual([]);
  });

  it('resolve in the registry, the selection and the options of a run', async () => {
    const registry = new MetricRegistry();
    const seen: unknown[] = [];
    registry.register(
      metric('AnswerRelevancy', ['Session'], (_e, ctx) => (seen.push(ctx.options.threshold), { value: 0.5 }), { provider: 'deepeval', options: ['threshold'] }),
    );
    registry.register(metric('Hallucination', ['Session'], () => ({ value: 0.25 }), { provider: 'opik' }));
    expect(registry.get('deepeval.AnswerRelevancyMetric')?.key).toBe('deepeval:AnswerRelevancy');
    expect(registry.get('opik.Hallucination')?.key).toBe('opik:Hallucination');
    expect(registry.has('deepeval.AnswerRelevancyMetric')).toBe(true);
    expect(registry.get('deepeval.BiasMetric')).toBeUndefined();
    const engine = new MetricEngine({}, registry);
    const run = await engine.computeLoadedSession(sampleSession(), {
      metrics: { Session: ['deepeval.AnswerRelevancyMetric', 'opik.Hallucination'] },
      metricOptions: { 'deepeval.AnswerRelevancyMetric': { threshold: 0.7 } },
    });
    expect(run.results.map((r) => [`${r.provider}:${r.name}`, r.result])).toEqual([['deepeval:AnswerRelevancy', 0.5], ['opik:Hallucination', 0.25]]);
    expect(seen).toEqual([0.7]);
  });
});
