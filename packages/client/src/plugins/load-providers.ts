/**
 * Metric provider plugins named in mce_config.yaml (`providers:`): each entry is a package name or a path (relative to
 * the config file) of a module whose default export, or `provider` export, is a MetricProvider (or a list of them).
 * Their metrics can then be selected in `metrics:` by name or as `provider:name`.
 */
import { MceError } from '@mce/core';
import { createRequire } from 'node:module';
import { isAbsolute, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MetricRegistry, ONTOLOGY_LEVELS, issueLines, type Metric, type MetricProvider } from '@mce/core';
import { z } from 'zod';
import { nativeProvider } from '@mce/provider-native';
import { ConfigError, providerSectionError, type MceConfig } from '../config/mce-config.js';
import { discoverProviderPackages } from './discover-providers.js';

export class PluginError extends MceError {
  readonly kind = 'bad-input' as const;
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

/** The exported providers of a module; throws PluginError naming `where` and `label`. */
async function importProviders(specifier: string, label: string, where: string, config?: MceConfig): Promise<{ list: MetricProvider[]; configured: boolean }> {
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

/**
 * Checks each provider's metrics and registers them beside those before (a clash of names is the newcomer's fault).
 * All are checked before any is registered, so that a module refused is refused whole.
 */
function admit(registry: MetricRegistry, list: readonly MetricProvider[], label: string, where: string): void {
  const fail = (provider: MetricProvider, error: unknown) =>
    new PluginError(`${where}: "${label}" (provider "${provider.name}"): ${(error as Error).message}`);
  for (const provider of list) {
    try {
      checkMetrics(provider);
    } catch (error) {
      throw fail(provider, error);
    }
    if (registry.getProvider(provider.name)) throw fail(provider, new Error(`Provider "${provider.name}" is already registered`));
  }
  for (const provider of list) {
    try {
      registry.registerProvider(provider);
    } catch (error) {
      throw fail(provider, error);
    }
  }
}

/** A registry holding what the engine registers first: the built-in catalog. */
function builtInRegistry(): MetricRegistry {
  const registry = new MetricRegistry();
  registry.registerProvider(nativeProvider);
  return registry;
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
  registry = builtInRegistry(),
  config?: MceConfig,
  onConfigured: (providers: readonly MetricProvider[]) => void = () => {},
): Promise<MetricProvider[]> {
  const providers: MetricProvider[] = [];
  for (const [i, entry] of entries.entries()) {
    const line = lines[i];
    const where = configFile ? `${configFile}${line === undefined ? '' : `:${line}`}: providers` : 'providers';
    const { list, configured } = await importProviders(pluginSpecifier(entry, configFile, cwd, where), entry, where, config);
    admit(registry, list, entry, where);
    if (configured) onConfigured(list);
    providers.push(...list);
  }
  return providers;
}

/**
 * The provider sections of the file were read by a provider, and the metrics it declared from them take names no
 * other provider's metric has (a bare name must mean one metric). Problems are the file's, at the entries' lines.
 */
function checkProviderSections(config: MceConfig, configured: readonly MetricProvider[], registry: MetricRegistry): void {
  const sections = Object.entries(config.providerSections ?? {}).filter(([, value]) => !(Array.isArray(value) && value.length === 0));
  if (sections.length === 0) return;
  if (configured.length === 0) {
    throw providerSectionError(
      config,
      sections.map(([section]) => ({
        path: [section],
        message: `no provider package that reads ${section} is loaded: install @mce/provider-sdk (npm install @mce/provider-sdk), and keep provider discovery on or name it under providers`,
      })),
    );
  }
  const problems: { path: (string | number)[]; message: string }[] = [];
  for (const provider of configured) {
    for (const metric of provider.metrics()) {
      const name = metric.metadata.name;
      const others = registry.list().filter((r) => r.metric.metadata.name === name && r.metric.metadata.provider !== provider.name);
      if (others.length === 0) continue;
      const at = sections.flatMap(([section, list]) =>
        Array.isArray(list) ? list.flatMap((entry: { name?: unknown } | null, i) => (entry?.name === name ? [[section, i, 'name']] : [])) : [],
      )[0] ?? [provider.name];
      problems.push({ path: at, message: `${name} is taken by ${others.map((o) => o.key).join(', ')}: give this metric another name` });
    }
  }
  if (problems.length > 0) throw providerSectionError(config, problems);
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

/** Where a provider came from (`mce provider list` shows it). */
export type ProviderOrigin =
  | { kind: 'built-in' }
  | { kind: 'config'; entry: string }
  | { kind: 'discovered'; package: string; version: string; dir: string };

export interface LoadedProvider {
  provider: MetricProvider;
  origin: ProviderOrigin;
}

/**
 * The `providers:` of a configuration (resolved from the directory its file was found from; a problem is fatal, the
 * user asked for it), then the installed provider packages discovery finds unless `provider_discovery: false`
 * (a broken one is passed to `onProblem` by name and left out: it must not stop the others).
 */
export async function loadProviderSet(config: MceConfig, onProblem: (message: string) => void = () => {}): Promise<LoadedProvider[]> {
  const registry = builtInRegistry();
  const loaded: LoadedProvider[] = [];
  const configured = config.providers ?? [];
  const cwd = config.baseDir ?? process.cwd();
  const configuredSpecifiers = new Set<string>();
  const fromSections: MetricProvider[] = [];
  const onConfigured = (list: readonly MetricProvider[]) => fromSections.push(...list);
  for (const [i, entry] of configured.entries()) {
    const list = await loadProviders([entry], config.source, cwd, [config.providerLines?.[i]], registry, config, onConfigured);
    configuredSpecifiers.add(pluginSpecifier(entry, config.source, cwd)); // resolved once already: cannot throw now
    loaded.push(...list.map((provider) => ({ provider, origin: { kind: 'config' as const, entry } })));
  }
  if (config.discoverProviders === false) {
    checkProviderSections(config, fromSections, registry);
    return loaded;
  }
  const { packages, problems } = discoverProviderPackages(cwd);
  for (const p of problems) onProblem(`provider package "${p.package}" (${p.dir}) is left out: ${p.message}`);
  for (const pkg of packages) {
    if (configuredSpecifiers.has(pkg.specifier)) continue; // named in the config too: loaded once, as configured
    const where = `provider package "${pkg.name}" (${pkg.dir})`;
    try {
      const { list, configured: fromConfig } = await importProviders(pkg.specifier, pkg.name, where, config);
      admit(registry, list, pkg.name, where);
      if (fromConfig) onConfigured(list);
      const origin = { kind: 'discovered' as const, package: pkg.name, version: pkg.version, dir: pkg.dir };
      loaded.push(...list.map((provider) => ({ provider, origin })));
    } catch (error) {
      // A mistake in the file is the user's to fix, not a broken package to leave out.
      if (error instanceof ConfigError) throw error;
      onProblem(`${(error as Error).message} — it is left out`);
    }
  }
  checkProviderSections(config, fromSections, registry);
  return loaded;
}

/** The providers of `loadProviderSet`, without their origins. */
export async function loadConfiguredProviders(config: MceConfig, onProblem?: (message: string) => void): Promise<MetricProvider[]> {
  return (await loadProviderSet(config, onProblem)).map((l) => l.provider);
}
