/**
 * A provider package's static catalogue: its providers and each metric's metadata, as JSON, so that mce can list,
 * show, check and plan its metrics without importing the package (and its copy of @mce/core and its library). The
 * package.json `mce.catalog` field holds it or names a JSON file inside the package:
 *
 *   "mce": { "provider": "./dist/index.js", "catalog": "./mce-catalog.json" }
 *
 * `mce provider catalog <package folder>` writes it from the code; the code is checked against it when it is loaded.
 */
import { readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ONTOLOGY_LEVELS, issueLines, type MetricMetadata, type MetricProvider } from '@mce/core';
import { z } from 'zod';

const CatalogMetricSchema = z.strictObject({
  name: z.string().min(1),
  levels: z.array(z.enum(ONTOLOGY_LEVELS)).min(1),
  nature: z.enum(['deterministic', 'llm-judged', 'aggregate']),
  unit: z.string(),
  valueRange: z.string(),
  description: z.string(),
  // As @mce/helper's defineMetric: none unless given.
  requirements: z.array(z.string()).default([]),
  dependsOn: z.array(z.string().min(1)).default([]),
  options: z.array(z.string()).optional(),
});

const CatalogProviderSchema = z.strictObject({
  name: z.string().min(1),
  // Left out (as `mce provider catalog` writes it): the package's own version, so a release needs no catalogue edit.
  version: z.string().min(1).optional(),
  description: z.string(),
  metrics: z.array(CatalogMetricSchema),
});

const CatalogSchema = z.strictObject({
  providers: z.array(CatalogProviderSchema).min(1),
  // Sections of mce_config.yaml the package's `configure` builds metrics from: filled in, it is imported at load.
  reads: z.array(z.string().min(1)).optional(),
});

export type CatalogMetric = z.infer<typeof CatalogMetricSchema>;
export type CatalogProvider = z.infer<typeof CatalogProviderSchema> & { version: string };
/** A catalogue as a package writes it (a provider's version may be left out). */
export type CatalogFile = z.infer<typeof CatalogSchema>;
/** A catalogue as read: every provider with its version. */
export type ProviderCatalog = Omit<CatalogFile, 'providers'> & { providers: CatalogProvider[] };

/**
 * The catalogue a package.json `mce.catalog` field holds or names (a path inside `dir`), a provider without a version
 * taking the package's `version`; throws with what is wrong.
 */
export function readCatalog(dir: string, field: unknown, version: string): ProviderCatalog {
  let where = 'package.json "mce.catalog"';
  let value = field;
  if (typeof field === 'string') {
    const file = resolve(dir, field);
    if (!file.startsWith(`${dir}${sep}`)) throw new Error(`${where} (${field}) leaves the package`);
    where = field;
    try {
      value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    } catch (error) {
      throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
    }
  }
  const parsed = CatalogSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${where}: ${issueLines(parsed.error).join('; ')}`);
  return { ...parsed.data, providers: parsed.data.providers.map((p) => ({ ...p, version: p.version ?? version })) };
}

/** A metric's metadata as the catalogue holds it (without its provider). */
export function catalogMetric(m: MetricMetadata): CatalogMetric {
  return {
    name: m.name,
    levels: [...m.levels],
    nature: m.nature,
    unit: m.unit,
    valueRange: m.valueRange,
    description: m.description,
    requirements: [...m.requirements],
    dependsOn: [...m.dependsOn],
    ...(m.options ? { options: [...m.options] } : {}),
  };
}

/**
 * The catalogue of loaded providers: what `mce.catalog` must hold for them. `packageVersion`: the version of their
 * package, left out of a provider that has it (as the catalogue is written, so that it follows the package's releases).
 */
export function catalogOf(providers: readonly MetricProvider[], packageVersion?: string): CatalogFile {
  return {
    providers: providers.map((p) => ({
      name: p.name,
      ...(p.version === packageVersion ? {} : { version: p.version }),
      description: p.description,
      metrics: p.metrics().map((m) => catalogMetric(m.metadata)),
    })),
  };
}

/** The metadata a catalogue entry stands for (the engine's shape). */
export function catalogMetadata(provider: string, metric: CatalogMetric): MetricMetadata {
  return { ...metric, provider };
}

/** Where loaded providers differ from the catalogue their package declares (the first difference), or undefined. */
export function catalogDifference(declared: ProviderCatalog, providers: readonly MetricProvider[]): string | undefined {
  const actual = catalogOf(providers) as ProviderCatalog; // no package version given: every provider keeps its own
  const names = (c: ProviderCatalog) => c.providers.map((p) => p.name).join(', ');
  if (names(declared) !== names(actual)) return `the catalogue lists the providers ${names(declared)}, the code ${names(actual)}`;
  for (const [i, want] of declared.providers.entries()) {
    const got = actual.providers[i] as CatalogProvider;
    const metricNames = (p: CatalogProvider) => p.metrics.map((m) => m.name).join(', ');
    if (metricNames(want) !== metricNames(got)) return `provider "${want.name}": the catalogue lists the metrics ${metricNames(want)}, the code ${metricNames(got)}`;
    for (const field of ['version', 'description'] as const) {
      if (want[field] !== got[field]) return `provider "${want.name}": ${field} is ${JSON.stringify(got[field])} in the code, ${JSON.stringify(want[field])} in the catalogue`;
    }
    for (const [j, metric] of want.metrics.entries()) {
      const code = got.metrics[j] as CatalogMetric;
      const keys = new Set([...Object.keys(metric), ...Object.keys(code)]) as Set<keyof CatalogMetric>;
      for (const key of keys) {
        if (JSON.stringify(metric[key]) !== JSON.stringify(code[key])) {
          return `metric "${want.name}:${metric.name}": ${key} is ${JSON.stringify(code[key])} in the code, ${JSON.stringify(metric[key])} in the catalogue`;
        }
      }
    }
  }
  return undefined;
}
