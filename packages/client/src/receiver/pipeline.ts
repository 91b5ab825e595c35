/** The receiver with what its settings ask for: an evaluator (in-process or the queue), the OTLP event export, its route. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MCEClient } from '../mce-client.js';
import { EvaluationEventExporter, logsEndpoint } from './evaluation-events.js';
import { inProcessEvaluator, OtlpReceiver, type ReceiverLogger, type SessionEvaluator } from './receiver.js';
import { otlpTracesApp } from './routes.js';
import type { ReceiverSettings } from './settings.js';

export interface ReceiverPipeline {
  receiver: OtlpReceiver;
  /** `POST /v1/traces`, to mount. */
  app: OpenAPIHono;
  exporter?: EvaluationEventExporter;
  /** Flushes the receiver (see OtlpReceiver.close), then the event export. */
  close(): Promise<{ flushedSpans: number; evaluated: number }>;
}

export interface PipelineOptions {
  settings: ReceiverSettings;
  env: NodeJS.ProcessEnv;
  logger: ReceiverLogger;
  /**
   * The evaluator to use instead of the one `settings.evaluate` names (required for `queue`: publishing ids to the
   * worker queue needs the worker package, which the CLI loads).
   */
  evaluator?: SessionEvaluator;
}

export function receiverPipeline(client: MCEClient, options: PipelineOptions): ReceiverPipeline {
  const { settings } = options;
  const exporter = settings.exportOtlp.enabled && settings.evaluate === 'in-process' ? new EvaluationEventExporter(logsEndpoint(settings.exportOtlp.endpoint, options.env)) : undefined;
  let evaluator = options.evaluator;
  if (settings.evaluate === 'none') evaluator = undefined;
  else if (settings.evaluate === 'in-process') evaluator ??= inProcessEvaluator(client, exporter);
  else if (!evaluator) throw new Error('receiver.evaluate is queue, but no queue evaluator was given');
  const receiver = new OtlpReceiver(client, settings, evaluator, options.logger);
  return {
    receiver,
    app: otlpTracesApp(receiver, settings.maxBodyBytes),
    ...(exporter ? { exporter } : {}),
    async close() {
      const outcome = await receiver.close();
      await exporter?.shutdown();
      return outcome;
    },
  };
}
