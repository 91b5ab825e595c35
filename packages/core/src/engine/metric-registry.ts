import type { Metric, PortableMetricRef } from '../contracts/metric.js';
import type { MetricProvider } from '../contracts/provider.js';

/** A registered metric: the instance, its `provider:name` key, and how to load it off the main thread (if it can be). */
export interface RegisteredMetric {
  readonly key: string;
  readonly metric: Metric;
  readonly portableRef?: PortableMetricRef;
  /** Its provider vouches that its details are plain JSON (`MetricProvider.jsonDetails`): the engine skips the check. */
  readonly jsonDetails?: true;
}

export interface ProviderInfo {
  name: string;
  description: string;
  version: string;
  metrics: string[];
}

export function metricKey(metric: Metric): string {
  return `${metric.metadata.provider}:${metric.metadata.name}`;
}

/**
 * The `provider:name` keys a telemetry-hub metric name may stand for, most literal first: `deepeval.AnswerRelevancyMetric`
 * → `deepeval:AnswerRelevancyMetric`, `deepeval:AnswerRelevancy`; `ragas.TopicAdherenceScore.f1` (a sub-score after a
 * second dot) → `ragas:TopicAdherenceScore`, `ragas:TopicAdherence`; `opik.Hallucination` → `opik:Hallucination`.
 * None for a name that is not `provider.ClassName[.part]`.
 */
export function aliasKeys(name: string): string[] {
  const match = /^([a-z][a-z0-9_-]*)\.([A-Za-z][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_]+)?$/.exec(name);
  if (!match) return [];
  const [, provider, className] = match as unknown as [string, string, string];
  const names = [className, className.replace(/Metric$/, ''), className.replace(/Score$/, ''), className.replace(/(Metric|Score)$/, '')];
  return [...new Set(names.filter((n) => n !== ''))].map((n) => `${provider}:${n}`);
}

/**
 * Registered metrics and providers. Look-ups take `provider:name` or a bare name; a bare name shared by several
 * providers means the preferred provider's metric (the built-in catalog, when a client sets it: a plugin cannot take
 * over `Duration`, and its own is `acme:Duration`), else it is ambiguous and must be qualified.
 */
export class MetricRegistry {
  readonly #byKey = new Map<string, RegisteredMetric>();
  readonly #keysByName = new Map<string, string[]>();
  readonly #providers = new Map<string, MetricProvider>();
  #preferred: string | undefined;
  /**
   * Why a name is unknown, when a client knows better than a spelling hint (a provider package not installed):
   * ` (… install @mce/provider-x)`; undefined for a name it knows nothing of.
   */
  unknownHint: ((name: string) => string | undefined) | undefined;

  /** The provider whose metric a bare name shared with other providers means. */
  preferProvider(name: string): void {
    this.#preferred = name;
  }

  /**
   * `portableRef` names a module export that a worker thread or child process can import to get the same metric:
   * a Metric, a MetricProvider (the metric is picked by name) or a function returning either.
   */
  register(metric: Metric, portableRef?: PortableMetricRef, jsonDetails = false): RegisteredMetric {
    const key = metricKey(metric);
    if (this.#byKey.has(key)) throw new Error(`Metric "${key}" is already registered`);
    const entry: RegisteredMetric = { key, metric, ...(portableRef ? { portableRef } : {}), ...(jsonDetails ? { jsonDetails: true as const } : {}) };
    this.#byKey.set(key, entry);
    const keys = this.#keysByName.get(metric.metadata.name) ?? [];
    keys.push(key);
    this.#keysByName.set(metric.metadata.name, keys);
    return entry;
  }

  /** Registers every metric of the provider; `portableRef` points at the provider's export (optional). */
  registerProvider(provider: MetricProvider, portableRef?: PortableMetricRef): void {
    if (this.#providers.has(provider.name)) throw new Error(`Provider "${provider.name}" is already registered`);
    for (const metric of provider.metrics()) {
      if (metric.metadata.provider !== provider.name) {
        throw new Error(
          `Provider "${provider.name}" lists metric "${metricKey(metric)}" of another provider (metadata.provider)`,
        );
      }
    }
    this.#providers.set(provider.name, provider);
    for (const metric of provider.metrics()) this.register(metric, portableRef, provider.jsonDetails === true);
  }

  /**
   * Puts `provider` in the place of the registered provider of its name, which must list the same metrics (by name):
   * a client registers a provider package from its static catalogue and swaps in the code once a run needs it.
   */
  replaceProvider(provider: MetricProvider): void {
    const registered = this.#providers.get(provider.name);
    if (!registered) throw new Error(`Provider "${provider.name}" is not registered`);
    const before = registered.metrics().map(metricKey);
    const after = provider.metrics().map(metricKey);
    if (before.length !== after.length || before.some((key, i) => key !== after[i])) {
      throw new Error(`Provider "${provider.name}" lists the metrics ${after.join(', ') || '(none)'}, not ${before.join(', ') || '(none)'}`);
    }
    this.#providers.set(provider.name, provider);
    for (const metric of provider.metrics()) {
      const key = metricKey(metric);
      const old = this.#byKey.get(key) as RegisteredMetric;
      this.#byKey.set(key, { key, metric, ...(old.portableRef ? { portableRef: old.portableRef } : {}), ...(provider.jsonDetails === true ? { jsonDetails: true as const } : {}) });
    }
  }

  /**
   * By `provider:name`, or by bare name when exactly one provider has it or the preferred provider is one of them.
   * Throws when ambiguous.
   */
  get(nameOrKey: string): RegisteredMetric | undefined {
    const direct = this.#byKey.get(nameOrKey);
    if (direct) return direct;
    const keys = this.#keysByName.get(nameOrKey);
    if (!keys) return this.#byAlias(nameOrKey);
    if (keys.length > 1) {
      const preferred = this.#preferred === undefined ? undefined : this.#byKey.get(`${this.#preferred}:${nameOrKey}`);
      if (preferred) return preferred;
      throw new Error(`Metric name "${nameOrKey}" is ambiguous: use one of ${keys.map((k) => `"${k}"`).join(', ')}`);
    }
    return this.#byKey.get(keys[0] as string);
  }

  /** A telemetry-hub spelling (`deepeval.AnswerRelevancyMetric`) of a registered `provider:name`. */
  #byAlias(name: string): RegisteredMetric | undefined {
    for (const key of aliasKeys(name)) {
      const entry = this.#byKey.get(key);
      if (entry) return entry;
    }
    return undefined;
  }

  /** As `get`, but undefined (no throw) when a bare name is ambiguous. */
  find(nameOrKey: string): RegisteredMetric | undefined {
    try {
      return this.get(nameOrKey);
    } catch {
      return undefined;
    }
  }

  /** Resolves a `dependsOn` entry: bare names mean the dependent's own provider first. */
  resolveDependency(dependency: string, fromProvider: string): RegisteredMetric | undefined {
    if (dependency.includes(':')) return this.#byKey.get(dependency);
    return this.#byKey.get(`${fromProvider}:${dependency}`) ?? this.get(dependency);
  }

  has(nameOrKey: string): boolean {
    return this.#byKey.has(nameOrKey) || this.#keysByName.has(nameOrKey) || this.#byAlias(nameOrKey) !== undefined;
  }

  list(): RegisteredMetric[] {
    return [...this.#byKey.values()];
  }

  listProviders(): ProviderInfo[] {
    return [...this.#providers.values()].map((p) => ({
      name: p.name,
      description: p.description,
      version: p.version,
      metrics: p.metrics().map((m) => m.metadata.name),
    }));
  }

  getProvider(name: string): MetricProvider | undefined {
    return this.#providers.get(name);
  }

  /** The registered providers, in registration order. */
  providers(): IterableIterator<MetricProvider> {
    return this.#providers.values();
  }
}
