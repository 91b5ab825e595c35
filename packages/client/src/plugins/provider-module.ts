/** Importing a provider module and checking what it exports: the edge where plugin code enters the engine. */
import { MceError, ONTOLOGY_LEVELS, issueLines, type Metric, type MetricProvider } from '@mce/core';
import { z } from 'zod';
import { providerSectionError, type MceConfig } from '../config/mce-config.js';

export class PluginError extends MceError {
  readonly kind = 'bad-input' as const;
  override name = 'PluginError';
}

function isProvider(value: unknown): value is MetricProvider {
  const p = value as Partial<MetricProvider> | null;
  return !!p && typeof p === 'object' && typeof p.name === 'string' && typeof p.metrics === 'function';
}

/** A provider's problems with the configuration section it reads, each at its path (`['sdk_metrics', 0, 'kind']`). */
type SectionProblems = { problems: { path: (string | number)[]; message: string }[] };
function hasSectionProblems(error: unknown): error is Error & SectionProblems {
  const problems = (error as Partial<SectionProblems> | null)?.problems;
  return error instanceof Error && Array.isArray(problems) && problems.every((p) => Array.isArray(p?.path));
}

/**
 * A module that reads mce_config.yaml exports `configure(sections)`: its providers are built from the file's
 * provider sections (a bad entry is a ConfigError of the file, at its line); other modules export them as they are.
 */
function exportedProviders(mod: Record<string, unknown>, label: string, where: string, config: MceConfig | undefined): unknown {
  if (typeof mod.configure !== 'function' || !config) return mod.default ?? mod.provider;
  try {
    return (mod.configure as (sections: Readonly<Record<string, unknown>>) => unknown)(config.providerSections ?? {});
  } catch (error) {
    if (hasSectionProblems(error)) throw providerSectionError(config, error.problems);
    throw new PluginError(`${where}: "${label}" could not read the configuration: ${(error as Error).message}`);
  }
}

/**
 * The exported providers of a module (built from `config`'s sections when it exports `configure`: `configured`);
 * throws PluginError naming `where` and `label`.
 */
export async function importProviders(specifier: string, label: string, where: string, config?: MceConfig): Promise<{ list: MetricProvider[]; configured: boolean }> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new PluginError(`${where}: cannot load "${label}": ${(error as Error).message}`);
  }
  const exported = exportedProviders(mod, label, where, config);
  const list = Array.isArray(exported) ? exported : [exported];
  if (list.length === 0 || !list.every(isProvider)) {
    throw new PluginError(`${where}: "${label}" exports no MetricProvider (expected a default or "provider" export with name and metrics())`);
  }
  return { list, configured: typeof mod.configure === 'function' && config !== undefined };
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
