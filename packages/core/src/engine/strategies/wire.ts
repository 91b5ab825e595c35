import type { MetricOutcome, PortableMetricRef } from '../../contracts/metric.js';
import type { MetricResult } from '../../ontology/metric-result.js';
import type { OntologyLevel, Session } from '../../ontology/types.js';

/** Messages between the engine and `worker-entry.js` (structured clone). */
export interface WireTask {
  ref: PortableMetricRef;
  /** `provider:name`, to pick the metric when the export is a provider. */
  metricKey: string;
  level: OntologyLevel;
  /** Element positions in `elementsAt(session, level)`; absent = all. */
  indices?: number[];
  options: Record<string, unknown>;
  /** Each name it may look up (its declared dependencies and their keys) → the key in `dependencyResults`. */
  dependencyKeys: Record<string, string>;
  /** The metric timeout of an LLM-judged task: the longest one `compute` or `computeBatch` may take (timeout.ts). */
  timeoutMs?: number;
  /** For an LLM-judged task: how many of its computations run at once (as on the async pool). */
  concurrency?: number;
}

export interface WorkerRequest {
  id: number;
  session: Session;
  /** Results the tasks depend on, by `provider:name` key, sent once per request. */
  dependencyResults: Record<string, MetricResult[]>;
  tasks: WireTask[];
}

/** A thrown error travels as its text, and whether it was transient (`isTransientError`). */
export interface WireFailure {
  $failed: string;
  $transient?: true;
}
export type WireOutcome = MetricOutcome | WireFailure;

export interface WorkerReply {
  id: number;
  outcomes?: WireOutcome[][];
  /** The whole request failed (metric module not loadable, …). */
  error?: string;
}
