/**
 * A discovered provider package that declares its catalogue (package.json `mce.catalog`): registered from it, so that
 * listing, checking and planning need none of its code, and imported only when a run computes one of its metrics.
 * Its code then takes the catalogue's place in the registry; code that cannot be loaded, or that does not match the
 * catalogue, is reported once and every metric of the package fails with that message (never a score).
 */
import type { Metric, MetricProvider, MetricRegistry } from '@mce/core';
import type { ProviderPackage } from './discover-providers.js';
import { catalogDifference, catalogMetadata, type CatalogProvider, type ProviderCatalog } from './provider-catalog.js';
import { PluginError, checkMetrics, importProviders } from './provider-module.js';

export class DeferredPackage {
  readonly package: ProviderPackage;
  /** Its providers as the catalogue describes them: metadata, and a compute that says why the code is not there. */
  readonly providers: readonly MetricProvider[];
  readonly #catalog: ProviderCatalog;
  #loading: Promise<void> | undefined;
  #settled = false;
  #failure: string | undefined;

  constructor(pkg: ProviderPackage, catalog: ProviderCatalog) {
    this.package = pkg;
    this.#catalog = catalog;
    this.providers = catalog.providers.map((p) => this.#standIn(p));
  }

  get where(): string {
    return `provider package "${this.package.name}" (${this.package.dir})`;
  }

  /** True once `load` has finished: its code is in the registry, or its metrics fail with why it is not. */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * Imports the package (once; later calls wait for the first) and puts its providers in the place of the catalogue's
   * in `registry`. A failure is passed to `onProblem`, not thrown: the other providers' metrics still compute.
   */
  load(registry: MetricRegistry, onProblem: (message: string) => void): Promise<void> {
    this.#loading ??= this.#load(registry)
      .catch((error: unknown) => {
        this.#failure = (error as Error).message;
        onProblem(`${this.#failure} — its metrics fail`);
      })
      .finally(() => {
        this.#settled = true;
      });
    return this.#loading;
  }

  async #load(registry: MetricRegistry): Promise<void> {
    const { list } = await importProviders(this.package.specifier, this.package.name, this.where);
    const difference = catalogDifference(this.#catalog, list);
    if (difference) throw new PluginError(`${this.where}: its code does not match its catalogue (package.json "mce.catalog"): ${difference}`);
    for (const provider of list) {
      try {
        checkMetrics(provider);
      } catch (error) {
        throw new PluginError(`${this.where} (provider "${provider.name}"): ${(error as Error).message}`);
      }
    }
    for (const provider of list) registry.replaceProvider(provider);
  }

  #standIn(entry: CatalogProvider): MetricProvider {
    const fail = (): never => {
      throw new PluginError(this.#failure ?? `${this.where} was not loaded before its metric was computed`);
    };
    const metrics: readonly Metric[] = Object.freeze(entry.metrics.map((m) => Object.freeze({ metadata: catalogMetadata(entry.name, m), compute: fail })));
    return Object.freeze({ name: entry.name, version: entry.version, description: entry.description, metrics: () => metrics });
  }
}
