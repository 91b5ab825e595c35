import type { ResultLookup } from '../contracts/metric.js';
import type { MetricResult } from '../ontology/metric-result.js';
import type { OntologyLevel } from '../ontology/types.js';
import { toMetricResult, type ResultRecord } from './output.js';

interface Indexed {
  all: MetricResult[];
  /** By measured id (the first in task order when two levels share one), and by level and id. */
  byId: Map<string, MetricResult> | undefined;
  byLevelId: Map<string, MetricResult> | undefined;
}

const levelId = (level: OntologyLevel, id: string) => `${level}\u0000${id}`;

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

  get(name: string, elementId: string, level?: OntologyLevel): MetricResult | undefined {
    if (level !== undefined) {
      const indexed = this.#index(name);
      indexed.byLevelId ??= new Map(indexed.all.map((r) => [levelId(r.measures.level, r.measures.id), r]));
      return indexed.byLevelId.get(levelId(level, elementId));
    }
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
      indexed = { all, byId: undefined, byLevelId: undefined };
      this.#indexed.set(name, indexed);
    }
    return indexed;
  }

  #byId(name: string): Map<string, MetricResult> {
    const indexed = this.#index(name);
    // Keyed by measured id, the first in task order kept (a session and its implicit MAS call may share an id).
    indexed.byId ??= new Map([...indexed.all].reverse().map((r) => [r.measures.id, r]));
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
    /** The asking task's level: an id two levels share means the element at this level first. */
    readonly level?: OntologyLevel,
  ) {}

  get(name: string, elementId: string, level?: OntologyLevel): MetricResult | undefined {
    const key = this.keys.get(name);
    if (key === undefined) return undefined;
    if (level !== undefined) return this.lookup.get(key, elementId, level);
    return (this.level !== undefined ? this.lookup.get(key, elementId, this.level) : undefined) ?? this.lookup.get(key, elementId);
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
