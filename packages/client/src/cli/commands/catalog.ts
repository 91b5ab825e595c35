/** `mce metric list|show` and `mce provider list`: the catalog, without opening a store. */
import { writeFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { MetricEngine, MetricRegistry, SpecRegistry, didYouMean, type MetricMetadata, type OntologyLevel } from '@mce/core';
import { defaultMetricSelection, nativeProvider } from '@mce/provider-native';
import type { MceConfig } from '../../config/index.js';
import { checkConfiguredSelection } from '../../config/check-selection.js';
import { loadProviderSet, type LoadedProvider, type ProviderOrigin } from '../../plugins/load-providers.js';
import { KNOWN_PROVIDERS, installHint, knownMetric } from '../../plugins/known-providers.js';
import { providerPackageAt } from '../../plugins/discover-providers.js';
import { catalogMetric, catalogOf } from '../../plugins/provider-catalog.js';
import { checkMetrics, importProviders } from '../../plugins/provider-module.js';
import { table } from '../format.js';
import { UsageError, resolveConfig, writeJson, type CliIO } from '../context.js';

/** The native provider, the plugins the configuration names and the provider packages discovered, with their origins. */
async function catalogProviders(config: MceConfig, io: CliIO): Promise<{ registry: MetricRegistry; loaded: LoadedProvider[] }> {
  const registry = new MetricRegistry();
  registry.registerProvider(nativeProvider);
  registry.preferProvider(nativeProvider.name); // as in MCEClient
  registry.unknownHint = installHint;
  const loaded = await loadProviderSet(config, (message) => io.stderr.write(`mce: warning: ${message}\n`));
  for (const { provider } of loaded) registry.registerProvider(provider);
  return { registry, loaded: [{ provider: nativeProvider, origin: { kind: 'built-in' } }, ...loaded] };
}

export async function catalogRegistry(config: MceConfig, io: CliIO): Promise<MetricRegistry> {
  return (await catalogProviders(config, io)).registry;
}

/** Where a provider came from, for people. */
function originText(origin: ProviderOrigin): string {
  if (origin.kind === 'built-in') return 'built-in';
  if (origin.kind === 'config') return `config: ${origin.entry}`;
  return `installed: ${origin.package}@${origin.version}`;
}

/** The metrics of the known provider packages that are not installed: listed with what to install. */
function notInstalledRows(registry: MetricRegistry) {
  return Object.entries(KNOWN_PROVIDERS)
    .filter(([name]) => !registry.getProvider(name))
    .flatMap(([provider, known]) =>
      known.metrics.map((name) => ({
        name,
        provider,
        levels: [] as OntologyLevel[],
        nature: known.deterministic?.includes(name) ? ('deterministic' as const) : ('llm-judged' as const),
        unit: 'dimensionless',
        valueRange: '',
        description: known.description,
        requirements: [] as string[],
        dependsOn: [] as string[],
        implemented: false,
        install: known.package,
      })),
    );
}

/** `name` and `provider` first, then the catalogue's fields (`options` absent when the metric does not say). */
function describeMetric(m: MetricMetadata, extra: { implemented?: boolean } = {}) {
  const { name, ...fields } = catalogMetric(m);
  return { name, provider: m.provider, ...fields, ...extra };
}

export function registerCatalogCommands(program: Command, io: CliIO): void {
  const metric = program.command('metric').description('the metric catalog');

  metric
    .command('list')
    .description('metrics the configured run computes; --all every implemented metric; --abstract the whole catalog')
    .option('--provider <name>', 'only this provider (mce = native)')
    .option('--all', 'every implemented metric of every provider')
    .option('--abstract', 'the whole catalog (spec registry), each marked implemented or not')
    .option('--json', 'JSON output')
    .action(async (opts: { provider?: string; all?: boolean; abstract?: boolean; json?: boolean }, cmd: Command) => {
      const config = resolveConfig(cmd, io);
      const registry = await catalogRegistry(config, io);
      // The configuration is checked as a run would check it: a misspelt metric must not just drop out of the list.
      checkConfiguredSelection(config, new MetricEngine({}, registry));
      const provider = opts.provider === 'native' ? 'mce' : opts.provider;
      if (provider !== undefined) {
        // The providers a row can come from: the registered ones, and with --abstract those of the spec catalog.
        const known = new Set([...registry.providers()].map((p) => p.name));
        for (const name of Object.keys(KNOWN_PROVIDERS)) known.add(name);
        if (opts.abstract) for (const spec of new SpecRegistry().list()) known.add(spec.provider);
        if (!known.has(provider)) {
          const names = [...known].sort((a, b) => (a === 'mce' ? -1 : b === 'mce' ? 1 : a.localeCompare(b)));
          throw new UsageError(`--provider: unknown provider "${provider}"${didYouMean(provider, known)} (known: ${names.join(', ')})`);
        }
      }
      let rows: Array<ReturnType<typeof describeMetric> & { install?: string }>;
      if (opts.abstract) {
        rows = new SpecRegistry().status(registry).map(({ spec, implemented }) => describeMetric(spec, { implemented }));
        // The library-backed providers' metrics are in no spec catalog: each listed, installed or with what to install.
        const known = new Set(Object.keys(KNOWN_PROVIDERS));
        rows.push(...registry.list().filter((e) => known.has(e.metric.metadata.provider)).map((e) => describeMetric(e.metric.metadata, { implemented: true })));
        rows.push(...notInstalledRows(registry));
      } else if (provider !== undefined && KNOWN_PROVIDERS[provider] && !registry.getProvider(provider)) {
        rows = notInstalledRows(registry);
      } else {
        let metas = registry.list().map((r) => r.metric.metadata);
        if (!opts.all) {
          const selection = config.metrics ?? defaultMetricSelection();
          // Each selected name as the run resolves it (a bare name shared with a plugin is the built-in metric).
          const selected = new Set(Object.values(selection).flat().map((name) => registry.find(name)?.key));
          metas = metas.filter((m) => selected.has(`${m.provider}:${m.name}`));
        }
        rows = metas.map((m) => describeMetric(m));
      }
      if (provider) rows = rows.filter((r) => r.provider === provider);
      if (opts.json) return writeJson(io, rows);
      const notInstalled = rows.some((r) => r.install !== undefined);
      const headers = ['Name', 'Provider', 'Nature', 'Levels', 'Unit', ...(opts.abstract ? ['Implemented'] : []), ...(notInstalled ? ['Install'] : [])];
      const body = rows.map((r) => [
        r.name,
        r.provider,
        r.nature,
        r.levels.join(',') || '—',
        r.unit,
        ...(opts.abstract ? [r.implemented ? 'yes' : 'no'] : []),
        ...(notInstalled ? [r.install ? `install ${r.install}` : ''] : []),
      ]);
      io.stdout.write(`${table(headers, body)}\n`);
    });

  metric
    .command('show <name>')
    .description('one metric: levels, nature, unit, range, inputs, dependencies')
    .option('--json', 'JSON output')
    .action(async (name: string, opts: { json?: boolean }, cmd: Command) => {
      const registry = await catalogRegistry(resolveConfig(cmd, io), io);
      let entry: ReturnType<MetricRegistry['get']>;
      try {
        entry = registry.get(name);
      } catch (error) {
        throw new UsageError((error as Error).message); // a name two plugins share: qualify it
      }
      const spec = new SpecRegistry().get(name);
      const meta = entry?.metric.metadata ?? spec;
      const missing = meta ? undefined : knownMetric(name);
      if (missing) {
        const info = { name: missing.metric, provider: missing.provider, implemented: false, install: missing.known.package };
        if (opts.json) return writeJson(io, info);
        io.stdout.write(`${info.name} (provider ${info.provider}) — not installed: npm install ${info.install}\n  ${missing.known.description}\n`);
        return;
      }
      if (!meta) {
        const names = [...registry.list().flatMap((e) => [e.key, e.metric.metadata.name]), ...new SpecRegistry().list().map((m) => m.name)];
        throw new UsageError(`unknown metric "${name}"${didYouMean(name, new Set(names))} (see: mce metric list --abstract)`);
      }
      const info = describeMetric(meta, { implemented: entry !== undefined });
      if (opts.json) return writeJson(io, info);
      const lines = [
        `${info.name} (provider ${info.provider})${info.implemented ? '' : ' — not implemented yet'}`,
        `  ${info.description}`,
        `  levels:       ${info.levels.join(', ')}`,
        `  nature:       ${info.nature}`,
        `  unit:         ${info.unit}`,
        `  value range:  ${info.valueRange}`,
        `  requires:     ${info.requirements.join(', ') || '—'}`,
        `  depends on:   ${info.dependsOn.join(', ') || '—'}`,
        `  options:      ${info.options ? info.options.join(', ') || 'none' : 'not declared (any option is passed through)'}`,
      ];
      io.stdout.write(`${lines.join('\n')}\n`);
    });

  const provider = program.command('provider').description('metric providers');
  provider
    .command('catalog [dir]')
    .description("a provider package's catalogue (package.json mce.catalog), from its code: printed, or written with --write")
    .option('--write', 'write it to the file package.json "mce.catalog" names')
    .action(async (dir: string | undefined, opts: { write?: boolean }) => {
      await writeCatalog(resolve(io.cwd, dir ?? '.'), opts.write === true, io);
    });
  provider
    .command('list')
    .description('registered metric providers: built in, named in the config, or installed packages found by discovery')
    .option('--json', 'JSON output')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { registry, loaded } = await catalogProviders(resolveConfig(cmd, io), io);
      const origins = new Map(loaded.map((l) => [l.provider.name, l.origin]));
      const providers = registry.listProviders().map((p) => ({ ...p, origin: origins.get(p.name) as ProviderOrigin }));
      if (opts.json) return writeJson(io, providers);
      const rows = providers.map((p) => [p.name, p.version, String(p.metrics.length), originText(p.origin), p.description]);
      io.stdout.write(`${table(['Provider', 'Version', 'Metrics', 'From', 'Description'], rows)}\n`);
    });
}

/** `mce provider catalog`: imports the package in `dir` and prints or writes the catalogue of what it exports. */
async function writeCatalog(dir: string, write: boolean, io: CliIO): Promise<void> {
  let pkg: ReturnType<typeof providerPackageAt>;
  try {
    pkg = providerPackageAt(dir);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { list } = await importProviders(pkg.specifier, pkg.name, `provider package "${pkg.name}" (${dir})`);
  list.forEach(checkMetrics);
  const text = `${JSON.stringify(catalogOf(list, pkg.version), null, 2)}\n`;
  if (!write) return void io.stdout.write(text);
  if (typeof pkg.catalogField !== 'string') throw new UsageError(`${resolve(dir, 'package.json')}: --write needs "mce.catalog" to name a JSON file in the package`);
  const file = resolve(dir, pkg.catalogField);
  if (!file.startsWith(`${dir}${sep}`)) throw new UsageError(`${resolve(dir, 'package.json')}: "mce.catalog" (${pkg.catalogField}) leaves the package`);
  writeFileSync(file, text);
  io.stderr.write(`mce: wrote ${file}\n`);
}
