import type { ResultLookup } from '../contracts/metric.js';
import type { MetricResult } from '../ontology/metric-result.js';
import type { ResultRecord } from './output.js';
import { toMetricResult } from './output.js';

interface Indexed {
  all: MetricResult[];
  byId: Map<string, MetricResult>;
}

/**
 * Results computed so far in one session run, by metric name and by `provider:name`. Records are kept as the
 * task's arrays and turned into MetricResults only when a metric asks for them.
 */
export class SessionResultLookup implements ResultLookup {
  readonly #records = new Map<string, ResultRecord[][]>();
  readonly #indexed = new Map<string, Indexed>();

  constructor(private readonly sessionId: string) {}

  add(provider: string, name: string, records: ResultRecord[]): void {
    for (const key of [name, `${provider}:${name}`]) {
      const lists = this.#records.get(key) ?? [];
      lists.push(records);
      this.#records.set(key, lists);
      this.#indexed.delete(key);
    }
  }

  get(name: string, elementId: string): MetricResult | undefined {
    return this.#index(name).byId.get(elementId);
  }

  all(name: string): MetricResult[] {
    return this.#index(name).all;
  }

  #index(name: string): Indexed {
    let indexed = this.#indexed.get(name);
    if (!indexed) {
      const all = (this.#records.get(name) ?? []).flatMap((records) =>
        records.map((record) => toMetricResult(record, this.sessionId)),
      );
      // Keyed by measured id; the same id at two levels cannot happen (span ids are unique, the session id is not a span id).
      indexed = { all, byId: new Map(all.map((r) => [r.measures.id, r])) };
      this.#indexed.set(name, indexed);
    }
    return indexed;
  }
}
