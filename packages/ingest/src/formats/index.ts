/**
 * The span formats of other tools, each told by its document's shape, in the order they are tried (the most specific
 * shapes first). OTLP requests, ClickHouse rows and session files are told apart in read.ts, before these.
 */
import type { WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import type { SpanRecord } from '../span.js';
import { anyAgentSpans, isAnyAgentTrace } from './any-agent.js';
import { isJaeger, jaegerSpans } from './jaeger.js';
import { isLangfuse, langfuseSpans } from './langfuse.js';
import { isOtelConsole, otelConsoleSpans } from './otel-console.js';
import type { Where } from './otlp.js';
import { isOtlpPart, otlpPartSpans } from './otlp-parts.js';
import { isPhoenix, phoenixSpans } from './phoenix.js';
import { isZipkin, zipkinSpans } from './zipkin.js';

export type SpanFormatName = 'jaeger' | 'zipkin' | 'langfuse' | 'phoenix' | 'otel-console' | 'any-agent' | 'otlp-span';

export interface SpanFormat {
  name: SpanFormatName;
  /** What the error for an unknown file lists it as. */
  description: string;
  matches(doc: unknown): boolean;
  /** The spans of a document at `base` in its file (undefined: the place of its parts is not known). */
  spans(doc: unknown, warnings: WarningSink, where: Where, base: JsonPath | undefined): Iterable<SpanRecord>;
}

export const SPAN_FORMATS: readonly SpanFormat[] = [
  { name: 'any-agent', description: 'any-agent AgentTrace JSON', matches: isAnyAgentTrace, spans: anyAgentSpans },
  { name: 'langfuse', description: 'a Langfuse trace export ({trace, observations})', matches: isLangfuse, spans: langfuseSpans },
  { name: 'jaeger', description: 'Jaeger JSON (data[].spans[])', matches: isJaeger, spans: jaegerSpans },
  { name: 'zipkin', description: 'Zipkin v2 JSON', matches: isZipkin, spans: zipkinSpans },
  { name: 'phoenix', description: 'Phoenix / OpenInference span JSON or spans dataframe', matches: isPhoenix, spans: phoenixSpans },
  { name: 'otel-console', description: 'OpenTelemetry console-exporter output (Python ConsoleSpanExporter, JS ReadableSpan)', matches: isOtelConsole, spans: otelConsoleSpans },
  { name: 'otlp-span', description: 'bare OTLP Span / ScopeSpans / ResourceSpans objects', matches: isOtlpPart, spans: otlpPartSpans },
];

export const SPAN_FORMAT_NAMES: readonly SpanFormatName[] = SPAN_FORMATS.map((f) => f.name);

/** The span format of a document, by its shape; undefined for none. */
export const spanFormatOf = (doc: unknown): SpanFormat | undefined => SPAN_FORMATS.find((f) => f.matches(doc));

export const spanFormat = (name: string): SpanFormat | undefined => SPAN_FORMATS.find((f) => f.name === name);
