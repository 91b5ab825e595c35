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
  /** Results of the metrics it depends on, by the names in its `dependsOn`. */
  dependencyResults: Record<string, MetricResult[]>;
}

export interface WorkerRequest {
  id: number;
  session: Session;
  tasks: WireTask[];
}

/** A thrown error travels as its text. */
export interface WireFailure {
  $failed: string;
}
export type WireOutcome = MetricOutcome | WireFailure;

export interface WorkerReply {
  id: number;
  outcomes?: WireOutcome[][];
  /** The whole request failed (metric module not loadable, …). */
  error?: string;
}
