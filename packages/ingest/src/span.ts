/**
 * The common span model every reader produces and the normaliser consumes.
 * Readers turn OTLP/JSON, OTLP JSON Lines and ClickHouse `otel_traces` rows into this shape; nothing past the
 * readers knows which wire format a span came from.
 */
import type { JsonPath } from './json-position.js';

export type SpanStatusCode = 'ok' | 'error' | 'unset';

export interface SpanEvent {
  name: string;
  /** Epoch milliseconds (fractional). */
  time: number;
  attributes: Record<string, unknown>;
}

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** `internal` | `server` | `client` | `producer` | `consumer` | `unspecified`. */
  kind: string;
  /** Epoch milliseconds (fractional: sub-millisecond precision kept). */
  startTime: number;
  endTime: number;
  status: { code: SpanStatusCode; message?: string };
  /** Span attributes with flattened dotted keys; values decoded from AnyValue to plain JS values. */
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope?: string | undefined;
  events: SpanEvent[];
  /** Session id chosen by the source itself (e.g. the key of a ClickHouse `{session id → rows}` object). */
  sourceSessionId?: string;
  /** The file the span was read from, when a read spans several (named by the normaliser's warnings about it). */
  file?: string;
  /** Its line in that file, for JSON Lines. */
  line?: number | undefined;
  /**
   * Where its object is in the JSON document it was read from (the file's; in JSON Lines, its line's): item
   * `listIndex` of the list at `listPath`, a path the spans of one list share. A warning about the span finds its line
   * and column from it, and only then. None for a span that is a document of its own (a ClickHouse row on its line).
   */
  listPath?: JsonPath | undefined;
  listIndex?: number | undefined;
}

/** The JSON path of the span's object in its document, when it is known. */
export const spanPath = (span: SpanRecord): JsonPath | undefined =>
  span.listPath === undefined || span.listIndex === undefined ? undefined : [...span.listPath, span.listIndex];

