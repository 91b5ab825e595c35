import type { MetricSpec } from './metric-spec.js';
import { AGGREGATE_SPECS, DETERMINISTIC_SPECS } from './catalog-deterministic.js';
import { LLM_JUDGED_SPECS, MCP_SPECS } from './catalog-judged.js';

/** The whole mce catalog, implemented or not. */
export const MCE_CATALOG: readonly MetricSpec[] = [
  ...DETERMINISTIC_SPECS,
  ...AGGREGATE_SPECS,
  ...LLM_JUDGED_SPECS,
  ...MCP_SPECS,
];

export interface SpecStatus {
  spec: MetricSpec;
  implemented: boolean;
}

/** Anything that can say whether a metric `provider:name` is registered (a MetricRegistry). */
export interface ImplementationIndex {
  has(nameOrKey: string): boolean;
}

/** Pure-data descriptors of the metric catalog (`mce metric list --abstract`). */
export class SpecRegistry {
  readonly #byKey = new Map<string, MetricSpec>();
  readonly #byName = new Map<string, MetricSpec>();

  constructor(specs: readonly MetricSpec[] = MCE_CATALOG) {
    for (const spec of specs) this.add(spec);
  }

  add(spec: MetricSpec): void {
    const key = `${spec.provider}:${spec.name}`;
    if (this.#byKey.has(key)) throw new Error(`Metric spec "${key}" is already in the catalog`);
    this.#byKey.set(key, spec);
    // A bare name resolves to the first provider that declared it (mce comes first).
    if (!this.#byName.has(spec.name)) this.#byName.set(spec.name, spec);
  }

  list(): MetricSpec[] {
    return [...this.#byKey.values()];
  }

  /** By `name` or `provider:name`. */
  get(nameOrKey: string): MetricSpec | undefined {
    return this.#byKey.get(nameOrKey) ?? this.#byName.get(nameOrKey);
  }

  has(nameOrKey: string): boolean {
    return this.get(nameOrKey) !== undefined;
  }

  /** Every spec with whether `index` (the registered metrics) implements it. */
  status(index: ImplementationIndex): SpecStatus[] {
    return this.list().map((spec) => ({ spec, implemented: index.has(`${spec.provider}:${spec.name}`) }));
  }

  isImplemented(nameOrKey: string, index: ImplementationIndex): boolean {
    const spec = this.get(nameOrKey);
    return spec !== undefined && index.has(`${spec.provider}:${spec.name}`);
  }
}
