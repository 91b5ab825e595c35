/**
 * The multi-agent scenario (multi-agent-scenario.ts, GenAI dialect) emitted by the real OpenTelemetry JS SDK: spans
 * started and ended at the scenario's times with its ids, handed to the span processor given (an in-memory exporter,
 * or a batch processor with the OTLP/HTTP protobuf exporter).
 */
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type IdGenerator, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { attributes, SPANS, T0, TRACE_ID, type NeutralSpan } from './multi-agent-scenario.js';

/** Hands out the scenario's ids: the next span id set before each span is started. */
class ScenarioIds implements IdGenerator {
  next = '';
  constructor(readonly traceId: string) {}
  generateTraceId = (): string => this.traceId;
  generateSpanId = (): string => this.next;
}

/** Attribute values the SDK takes: objects as JSON text (as the OTLP JSON scenario writes them). */
function sdkAttributes(s: NeutralSpan): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [k, v] of Object.entries(attributes(s, 'genai'))) {
    out[k] = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : JSON.stringify(v);
  }
  return out;
}

export interface EmitOptions {
  /** Another trace id (and session id suffix) for the same session shape: the benchmark's many sessions. */
  traceId?: string;
  /** Move every time by this many ms. */
  shiftMs?: number;
}

/** Emits the scenario's 14 spans through `processor`, children ended before their parents, then flushes. */
export async function emitScenario(processor: SpanProcessor, options: EmitOptions = {}): Promise<BasicTracerProvider> {
  const ids = new ScenarioIds(options.traceId ?? TRACE_ID);
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    spanProcessors: [processor],
    resource: resourceFromAttributes({ 'service.name': 'travel-assistant' }),
  });
  const tracer = provider.getTracer('travel-assistant');
  const shift = options.shiftMs ?? 0;
  const started = new Map<string, Span>();
  for (const s of [...SPANS].sort((a, b) => a.start - b.start)) {
    ids.next = s.id;
    const parent = s.parent ? started.get(s.parent) : undefined;
    const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
    const span = tracer.startSpan(s.name, { startTime: T0 + shift + s.start, attributes: sdkAttributes(s) }, ctx);
    if (s.error) span.setStatus({ code: SpanStatusCode.ERROR, message: s.error.message });
    started.set(s.id, span);
  }
  for (const s of [...SPANS].sort((a, b) => a.end - b.end)) started.get(s.id)!.end(T0 + shift + s.end);
  await provider.forceFlush();
  return provider;
}
