/**
 * Metric provider plugins named in mce_config.yaml (`providers:`): each entry is a package name or a path (relative to
 * the config file) of a module whose default export, or `provider` export, is a MetricProvider (or a list of them).
 * Their metrics can then be selected in `metrics:` by name or as `provider:name`.
 */
import { createRequire } from 'node:module';
import { isAbsolute, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MetricRegistry, ONTOLOGY_LEVELS, issueLines, type Metric, type MetricProvider } from '@mce/core';
import { z } from 'zod';
import { nativeProvider } from '@mce/provider-native';
import type { MceConfig } from '../config/mce-config.js';

export class PluginError extends Error {
  override name = 'PluginError';
}

function isProvider(value: unknown): value is MetricProvider {
  const p = value as Partial<MetricProvider> | null;
  return !!p && typeof p === 'object' && typeof p.name === 'string' && typeof p.metrics === 'function';
}

/**
 * Resolve a `providers:` entry: `./x` and `../x` (and absolute paths) are files relative to the config file; a bare
 * name is a package resolved from the config file's directory (the project's `node_modules`, not mce's own). URLs
 * (`data:`, `http:`, …) are refused: a config file names code to load, it does not carry it.
 */
export function pluginSpecifier(entry: string, configFile: string | undefined, cwd: string, where = 'providers'): string {
  const base = configFile ? dirname(resolve(cwd, configFile)) : cwd;
  if (entry.startsWith('.') || isAbsolute(entry)) return pathToFileURL(resolve(base, entry)).href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(entry) && !entry.startsWith('@')) {
    throw new PluginError(`${where}: "${entry}" is a URL; name a package or a file relative to the config file`);
  }
  let resolved: string;
  try {
    resolved = createRequire(join(base, 'mce_config.yaml')).resolve(entry);
  } catch (error) {
    throw new PluginError(`${where}: cannot find package "${entry}" from ${base}: ${(error as Error).message.split('\n')[0]}`);
  }
  return pathToFileURL(resolved).href;
}

/**
 * Loads the `providers:` entries. `lines`: where the config file writes each entry, so that a problem is reported at
 * `file:line` (as every other problem of the file is).
 */
export async function loadProviders(
  entries: readonly string[],
  configFile: string | undefined,
  cwd = process.cwd(),
  lines: readonly (number | undefined)[] = [],
): Promise<MetricProvider[]> {
  const providers: MetricProvider[] = [];
  // Checked as the engine will register them, next to the built-in catalog, so that a problem names its plugin.
  const registry = new MetricRegistry();
  registry.registerProvider(nativeProvider);
  for (const [i, entry] of entries.entries()) {
    const line = lines[i];
    const where = configFile ? `${configFile}${line === undefined ? '' : `:${line}`}: providers` : 'providers';
    let mod: Record<string, unknown>;
    const specifier = pluginSpecifier(entry, configFile, cwd, where);
    try {
      mod = (await import(specifier)) as Record<string, unknown>;
    } catch (error) {
      throw new PluginError(`${where}: cannot load "${entry}": ${(error as Error).message}`);
    }
    const exported = mod.default ?? mod.provider;
    const list = Array.isArray(exported) ? exported : [exported];
    if (list.length === 0 || !list.every(isProvider)) {
      throw new PluginError(`${where}: "${entry}" exports no MetricProvider (expected a default or "provider" export with name and metrics())`);
    }
    for (const provider of list) {
      try {
        checkMetrics(provider);
        registry.registerProvider(provider);
      } catch (error) {
        throw new PluginError(`${where}: "${entry}" (provider "${provider.name}"): ${(error as Error).message}`);
      }
    }
    providers.push(...list);
  }
  return providers;
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
function checkMetrics(provider: MetricProvider): void {
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

/** The `providers:` of a configuration, resolved from the directory its file was found from. */
export function loadConfiguredProviders(config: MceConfig): Promise<MetricProvider[]> {
  return loadProviders(config.providers ?? [], config.source, config.baseDir ?? process.cwd(), config.providerLines);
}
