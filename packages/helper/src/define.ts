import type { HelperElement, Level, Metric, MetricContext, MetricOutcome, MetricProvider, MetricSkip, Nature } from './types.js';

export interface MetricDefinition {
  name: string;
  levels: readonly Level[];
  description: string;
  compute(element: HelperElement, ctx: MetricContext): MetricOutcome | Promise<MetricOutcome>;
  /** Default `deterministic`. */
  nature?: Nature;
  /** Default `score`. */
  unit?: string;
  /** Default `any number`. */
  valueRange?: string;
  requirements?: readonly string[];
  dependsOn?: readonly string[];
  /** The option names it reads; when given, any other option set for it is a configuration error. */
  options?: readonly string[];
}

const NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** A metric from its definition; its provider is filled in by `defineProvider`. */
export function defineMetric(definition: MetricDefinition): Metric {
  if (!NAME.test(definition.name)) throw new TypeError(`metric name "${definition.name}": letters, digits, _ . - only, starting with a letter`);
  if (definition.levels.length === 0) throw new TypeError(`metric ${definition.name}: levels is empty`);
  const { compute, name, levels, description } = definition;
  return {
    metadata: {
      name,
      provider: '',
      levels: [...levels],
      nature: definition.nature ?? 'deterministic',
      unit: definition.unit ?? 'score',
      valueRange: definition.valueRange ?? 'any number',
      description,
      requirements: definition.requirements ?? [],
      dependsOn: definition.dependsOn ?? [],
      ...(definition.options ? { options: definition.options } : {}),
    },
    compute,
  };
}

export interface ProviderDefinition {
  /** The provider id: results carry it, and metrics are named `<name>:<Metric>`. */
  name: string;
  version: string;
  description: string;
  metrics: readonly Metric[];
}

/** A provider (what a package declaring `"mce": {"provider": …}` exports as default) from its metrics. */
export function defineProvider(definition: ProviderDefinition): MetricProvider {
  if (!NAME.test(definition.name)) throw new TypeError(`provider name "${definition.name}": letters, digits, _ . - only, starting with a letter`);
  const seen = new Set<string>();
  const metrics = definition.metrics.map((m) => {
    if (seen.has(m.metadata.name)) throw new TypeError(`provider ${definition.name}: metric ${m.metadata.name} is defined twice`);
    seen.add(m.metadata.name);
    return { metadata: { ...m.metadata, provider: definition.name }, compute: m.compute.bind(m) };
  });
  const { name, version, description } = definition;
  return { name, version, description, metrics: () => metrics };
}

/** The outcome for an element the metric does not apply to. */
export const skip = (reason: string): MetricSkip => ({ skipped: reason });
