import type { ResultLookup } from '../contracts/metric.js';
import type { MetricResult } from '../ontology/metric-result.js';
import type { OntologyLevel } from '../ontology/types.js';
import { toMetricResult, type ResultRecord } from './output.js';

interface Indexed {
  all: MetricResult[];
  byId: Map<string, MetricResult> | undefined;
}

/**
 * Results of one session run that later tasks depend on (kept by the engine for them), by `provider:name`. Records
 * are kept as the task's arrays, in task order, and turned into MetricResults only when a metric asks for them.
 * Metrics see them through a `DependencyView`: only what they declared, under the names they declared.
 */
export class SessionResultLookup implements ResultLookup {
  readonly #records = new Map<string, ResultRecord[][]>();
  readonly #indexed = new Map<string, Indexed>();

  constructor(private readonly sessionId: string) {}

  add(key: string, records: ResultRecord[]): void {
    const lists = this.#records.get(key) ?? [];
    lists.push(records);
    this.#records.set(key, lists);
    this.#indexed.delete(key);
  }

  get(name: string, elementId: string): MetricResult | undefined {
    return this.#byId(name).get(elementId);
  }

  /** The values at one level, read from the records themselves (each task's records share one level). */
  valuesAt(name: string, level: OntologyLevel): number[] {
    const values: number[] = [];
    for (const records of this.#records.get(name) ?? []) {
      if (records[0]?.level !== level) continue;
      for (let i = 0; i < records.length; i++) values.push(records[i]!.result);
    }
    return values;
  }

  /** A copy: a metric sorting its input must not reorder it for the next one. */
  all(name: string): MetricResult[] {
    return this.#index(name).all.slice();
  }

  #index(name: string): Indexed {
    let indexed = this.#indexed.get(name);
    if (!indexed) {
      const all: MetricResult[] = [];
      for (const records of this.#records.get(name) ?? []) {
        const first = records[0];
        if (!first) continue;
        const ofMetricType = `${first.provider}:${first.name}`; // one task's records share it
        for (const record of records) all.push(toMetricResult(record, this.sessionId, ofMetricType));
      }
      indexed = { all, byId: undefined };
      this.#indexed.set(name, indexed);
    }
    return indexed;
  }

  #byId(name: string): Map<string, MetricResult> {
    const indexed = this.#index(name);
    // Keyed by measured id; the same id at two levels cannot happen (span ids are unique, the session id is not a span id).
    indexed.byId ??= new Map(indexed.all.map((r) => [r.measures.id, r]));
    return indexed.byId;
  }
}


/**
 * What one metric may look up: the metrics it declared in `dependsOn`, each under the name it declared (`Duration`
 * means its own provider's Duration when it has one) and under its `provider:name` key. Anything else is empty, in
 * every strategy.
 */
export class DependencyView implements ResultLookup {
  constructor(
    readonly lookup: SessionResultLookup,
    /** Declared name (and key) → `provider:name` key. */
    readonly keys: ReadonlyMap<string, string>,
  ) {}

  get(name: string, elementId: string): MetricResult | undefined {
    const key = this.keys.get(name);
    return key === undefined ? undefined : this.lookup.get(key, elementId);
  }

  all(name: string): MetricResult[] {
    const key = this.keys.get(name);
    return key === undefined ? [] : this.lookup.all(key);
  }

  valuesAt(name: string, level: OntologyLevel): number[] {
    const key = this.keys.get(name);
    return key === undefined ? [] : this.lookup.valuesAt(key, level);
  }
}
