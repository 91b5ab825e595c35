import { describe, expect, it } from 'vitest';
import { MetricEngine, MetricOptionsError, MetricRegistry, checkMetricOptions, closest } from '@mce/core';
import { constant, metric } from './helpers/metrics.js';
import { sampleSession } from './helpers/sessions.js';

const judged = metric('Relevance', ['Session'], constant(1), { options: ['model', 'threshold', 'system_one_model'] });
const plain = metric('Count', ['Session'], constant(2), { options: [] });
const open = metric('Open', ['Session'], constant(3)); // says nothing about its options

function registry(): MetricRegistry {
  const r = new MetricRegistry();
  for (const m of [judged, plain, open]) r.register(m);
  return r;
}

const problemsOf = (options: Parameters<typeof checkMetricOptions>[1]) => {
  try {
    checkMetricOptions(registry(), options);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(MetricOptionsError);
    return (error as MetricOptionsError).problems;
  }
};

describe('metric options', () => {
  it('accepts declared options, by bare name or provider:name, in snake_case or camelCase', () => {
    expect(problemsOf({ Relevance: { model: 'm', threshold: 0.5 }, 'test:Relevance': { systemOneModel: 'local' }, Count: {} })).toEqual([]);
  });

  it('passes any option through to a metric that does not declare its options', () => {
    expect(problemsOf({ Open: { anything: 1, at_all: true } })).toEqual([]);
  });

  it('names an option the metric does not read, with the likely one and the list', () => {
    expect(problemsOf({ Relevance: { treshold: 0.5, colour: 'red' }, Count: { model: 'x' } })).toEqual([
      { metric: 'Relevance', option: 'treshold', problem: 'test:Relevance has no option "treshold" (did you mean "threshold"?); its options: model, threshold, system_one_model' },
      { metric: 'Relevance', option: 'colour', problem: 'test:Relevance has no option "colour"; its options: model, threshold, system_one_model' },
      { metric: 'Count', option: 'model', problem: 'test:Count has no option "model"; it takes no options' },
    ]);
  });

  it('names options of a metric that is not registered, with the closest name', () => {
    expect(problemsOf({ Relevence: { model: 'm' }, Zzz: {} })).toEqual([
      { metric: 'Relevence', problem: 'options for unknown metric "Relevence" (did you mean "Relevance"?)' },
      { metric: 'Zzz', problem: 'options for unknown metric "Zzz"' },
    ]);
  });

  it('closest: a near name within a third of the length, else none', () => {
    expect(closest('treshold', ['threshold', 'model'])).toBe('threshold');
    expect(closest('MODEL', ['threshold', 'model'])).toBe('model');
    expect(closest('colour', ['threshold', 'model'])).toBeUndefined();
  });

  it('a run with a bad option is refused before anything is computed', async () => {
    let computed = 0;
    const engine = new MetricEngine();
    engine.registerMetric(metric('Counted', ['Session'], () => ({ value: ++computed }), { options: ['threshold'] }));
    const refused = await engine
      .computeLoadedSession(sampleSession(), { metricOptions: { Counted: { treshold: 0.5 } } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MetricOptionsError);
    expect((refused as Error).message).toBe('test:Counted has no option "treshold" (did you mean "threshold"?); its options: threshold');
    expect(computed).toBe(0);
    const run = await engine.computeLoadedSession(sampleSession(), { metricOptions: { Counted: { threshold: 0.5 } } });
    expect(run.results.map((r) => r.result)).toEqual([1]);
  });

  it('an unknown metric in a selection names the likely one', () => {
    const engine = new MetricEngine();
    engine.registerMetric(judged);
    expect(() => engine.plan({ metrics: { Session: ['Relevence', 'Zzz'] } })).toThrow(
      'Invalid metric selection:\n- Unknown metric "Relevence" selected at Session (did you mean "Relevance"?)\n- Unknown metric "Zzz" selected at Session',
    );
  });
});

describe('options under a bare name', () => {
  it('go to the metric the bare name means (the preferred provider\'s), not to another provider\'s metric of that name', async () => {
    const seen: Record<string, unknown> = {};
    const echo = (provider: string) =>
      metric('Judge', ['Session'], (_s, ctx) => {
        seen[provider] = ctx.options;
        return { value: 1 };
      }, { provider, options: ['model'] });
    const engine = new MetricEngine();
    engine.registerProvider({ name: 'mce', description: 'd', version: '1', metrics: () => [echo('mce')] });
    engine.registerProvider({ name: 'acme', description: 'd', version: '1', metrics: () => [echo('acme')] });
    engine.registry.preferProvider('mce');
    await engine.computeLoadedSession(sampleSession(), { metrics: { Session: ['mce:Judge', 'acme:Judge'] }, metricOptions: { Judge: { model: 'gpt-4o-mini' } } });
    expect(seen).toEqual({ mce: { model: 'gpt-4o-mini' }, acme: {} });
    await engine.computeLoadedSession(sampleSession(), { metrics: { Session: ['acme:Judge'] }, metricOptions: { 'acme:Judge': { model: 'm2' } } });
    expect(seen.acme).toEqual({ model: 'm2' });
  });
});
