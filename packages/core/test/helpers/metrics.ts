import type { Metric, MetricMetadata, MetricOutcome, OntologyLevel } from '@mce/core';

type Extra<L extends OntologyLevel> = Partial<MetricMetadata> & Partial<Pick<Metric<L>, 'computeBatch' | 'cacheKey'>>;

/** A test metric: `compute` given, metadata filled with defaults; typed by its levels' element type. */
export function metric<L extends OntologyLevel>(
  name: string,
  levels: readonly L[],
  compute: Metric<L>['compute'],
  extra: Extra<L> = {},
): Metric {
  const { computeBatch, cacheKey, ...meta } = extra;
  const m: Metric<L> = {
    metadata: {
      name,
      provider: 'test',
      levels,
      nature: 'deterministic',
      unit: 'count',
      valueRange: 'non-negative number',
      description: name,
      requirements: [],
      dependsOn: [],
      ...meta,
    },
    compute,
  };
  if (computeBatch) m.computeBatch = computeBatch;
  if (cacheKey) m.cacheKey = cacheKey;
  return m as unknown as Metric;
}

export const constant = (value: number) => (): MetricOutcome => ({ value });
