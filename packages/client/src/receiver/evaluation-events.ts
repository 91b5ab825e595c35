/**
 * Metric results as OpenTelemetry `gen_ai.evaluation.result` events (GenAI semantic conventions), log records sent by
 * the OpenTelemetry JS SDK's OTLP/HTTP protobuf log exporter: the semconv attributes, the evaluated span's trace and
 * span id as the record's context, and mce's extras under `mce.`.
 */
import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { SeverityNumber, type LogAttributes } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ResultRecord, Session } from '@mce/core';

export const EVALUATION_EVENT = 'gen_ai.evaluation.result';

/** The logs endpoint: the one configured, else the OTLP variables of `env` (as the SDK reads them), else the local collector's. */
export function logsEndpoint(configured: string | undefined, env: NodeJS.ProcessEnv): string {
  if (configured) return configured;
  const signal = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?.trim();
  if (signal) return signal;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) return `${base.replace(/\/+$/, '')}/v1/logs`;
  return 'http://localhost:4318/v1/logs';
}

const isSpan = (c: { id: string; traceId?: string | undefined }): c is { id: string; traceId: string } => c.traceId !== undefined && /^[0-9a-f]{16}$/.test(c.id);

/**
 * The span a result is about: a call's own span; for the session (or an implicit MAS call, named by its trace), its
 * first MAS call's span, else its first call's (a session without a workflow span).
 */
export function evaluatedSpan(session: Session, result: Pick<ResultRecord, 'level' | 'measures'>): { traceId: string; spanId: string } | undefined {
  const calls = [...session.masCalls, ...session.agentCalls, ...session.taskCalls, ...session.llmCalls, ...session.toolCalls];
  const own = calls.find((c) => c.id === result.measures && isSpan(c));
  const call = own ?? session.masCalls.find(isSpan) ?? [...calls].sort((a, b) => a.startTime - b.startTime).find(isSpan);
  return call && isSpan(call) ? { traceId: call.traceId, spanId: call.id } : undefined;
}

/** The semconv attributes of one result, and mce's own under `mce.`. */
export function evaluationAttributes(result: ResultRecord, sessionId: string): LogAttributes {
  return {
    'gen_ai.evaluation.name': result.name,
    'gen_ai.evaluation.score.value': result.result,
    ...(typeof result.details?.label === 'string' ? { 'gen_ai.evaluation.score.label': result.details.label } : {}),
    ...(result.reasoning ? { 'gen_ai.evaluation.explanation': result.reasoning } : {}),
    ...(result.evaluationModel ? { 'gen_ai.request.model': result.evaluationModel } : {}),
    'mce.metric.provider': result.provider,
    'mce.metric.unit': result.unit,
    'mce.metric.level': result.level,
    'mce.result.id': result.id,
    'mce.session.id': sessionId,
    'mce.evaluation.cost_usd': result.evaluationCost,
    'mce.evaluation.total_tokens': result.evaluationTotalTokenCount,
  };
}

/** The records an exporter failed to send: the SDK only reports them to its error handler, the caller must know. */
class CountingExporter implements LogRecordExporter {
  failed = 0;
  lastError: Error | undefined;
  constructor(private readonly inner: LogRecordExporter) {}
  export(records: ReadableLogRecord[], done: Parameters<LogRecordExporter['export']>[1]): void {
    this.inner.export(records, (result) => {
      if (result.code !== 0) {
        this.failed += records.length;
        this.lastError = result.error;
      }
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

export class EvaluationEventExporter {
  readonly #provider: LoggerProvider;
  readonly #exporter: CountingExporter;
  readonly #logger;
  #emitted = 0;
  #failedBefore = 0;

  constructor(
    readonly endpoint: string,
    options: { serviceName?: string; headers?: Record<string, string> } = {},
  ) {
    const exporter = (this.#exporter = new CountingExporter(new OTLPLogExporter({ url: endpoint, ...(options.headers ? { headers: options.headers } : {}) })));
    this.#provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'mce' }),
      // A queue large enough for the results of a batch of sessions: past it the SDK drops records.
      processors: [new BatchLogRecordProcessor({ exporter, maxQueueSize: 65_536, maxExportBatchSize: 512 })],
    });
    this.#logger = this.#provider.getLogger('mce');
  }

  /** Log records emitted so far. */
  get emitted(): number {
    return this.#emitted;
  }

  /** One record per result, each with the context of the span it evaluated (none when it names no span). */
  emit(session: Session, results: readonly ResultRecord[]): void {
    for (const result of results) {
      const span = evaluatedSpan(session, result);
      const context = span ? trace.setSpanContext(ROOT_CONTEXT, { ...span, traceFlags: TraceFlags.SAMPLED, isRemote: true }) : ROOT_CONTEXT;
      this.#logger.emit({
        eventName: EVALUATION_EVENT,
        timestamp: new Date(result.timestamp),
        severityNumber: SeverityNumber.INFO,
        attributes: evaluationAttributes(result, session.id),
        context,
      });
      this.#emitted++;
    }
  }

  /** Sends what is batched; throws, with their count, when records emitted since the last flush could not be sent. */
  async flush(): Promise<void> {
    await this.#provider.forceFlush();
    const failed = this.#exporter.failed - this.#failedBefore;
    this.#failedBefore = this.#exporter.failed;
    if (failed > 0) throw new Error(`${failed} evaluation record(s) could not be sent to ${this.endpoint}: ${this.#exporter.lastError?.message ?? 'export failed'}`);
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}
