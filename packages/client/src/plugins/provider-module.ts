/** Importing a provider module and checking what it exports: the edge where plugin code enters the engine. */
import { MceError, ONTOLOGY_LEVELS, issueLines, type Metric, type MetricProvider } from '@mce/core';
import { z } from 'zod';

export class PluginError extends MceError {
  readonly kind = 'bad-input' as const;
  override name = 'PluginError';
}

function isProvider(value: unknown): value is MetricProvider {
  const p = value as Partial<MetricProvider> | null;
  return !!p && typeof p === 'object' && typeof p.name === 'string' && typeof p.metrics === 'function';
}

/** The exported providers of a module; throws PluginError naming `where` and `label`. */
export async function importProviders(specifier: string, label: string, where: string): Promise<MetricProvider[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new PluginError(`${where}: cannot load "${label}": ${(error as Error).message}`);
  }
  const exported = mod.default ?? mod.provider;
  const list = Array.isArray(exported) ? exported : [exported];
  if (list.length === 0 || !list.every(isProvider)) {
    throw new PluginError(`${where}: "${label}" exports no MetricProvider (expected a default or "provider" export with name and metrics())`);
  }
  return list;
}

/** The metadata the engine relies on (a plugin is an edge: its metrics are checked as a file would be). */
const PluginMetricSchema = z.object({
  metadata: z.object({
    name: z.string().min(1),
    provider: z.string().min(1),
    levels: z.array(z.enum(ONTOLOGY_LEVELS)).min(1),
    nature: z.enum(['deterministic', 'llm-judged', 'aggregate']),
    unit: z.string(),
    valueRange: z.string(),
    description: z.string(),
    requirements: z.array(z.string()),
    dependsOn: z.array(z.string().min(1)),
    options: z.array(z.string()).optional(),
  }),
  compute: z.custom<Metric['compute']>((v) => typeof v === 'function', 'must be a function'),
  computeBatch: z.custom<NonNullable<Metric['computeBatch']>>((v) => typeof v === 'function', 'must be a function').optional(),
  cacheKey: z.custom<NonNullable<Metric['cacheKey']>>((v) => typeof v === 'function', 'must be a function').optional(),
});

/** Each metric of the provider against PluginMetricSchema; the first bad one is named with its fields. */
export function checkMetrics(provider: MetricProvider): void {
  const metrics: unknown = provider.metrics();
  if (!Array.isArray(metrics)) throw new Error('metrics() must return a list of metrics');
  metrics.forEach((metric: unknown, i) => {
    const parsed = PluginMetricSchema.safeParse(metric);
    if (parsed.success) return;
    const name = (metric as Partial<Metric> | undefined)?.metadata?.name;
    const which = typeof name === 'string' && name !== '' ? `metric "${name}"` : `metric #${i + 1}`;
    throw new Error(`${which}: ${issueLines(parsed.error).join('; ')}`);
  });
}
