/**
 * A worker's evaluation events: with `receiver.export_otlp.enabled` (or `--export-otlp`), a worker that computes the
 * sessions the receiver queued sends their results as `gen_ai.evaluation.result` records, as the receiver does in
 * process. The OpenTelemetry SDK is loaded only then.
 */
import type { MceConfig } from '../config/mce-config.js';
import type { WorkerServiceOptions } from '../worker-service.js';
import { receiverSettings } from './settings.js';

export interface WorkerEvents {
  options: WorkerServiceOptions;
  /** Where the events go (for the start-up log). */
  endpoint: string;
  shutdown(): Promise<void>;
}

/** The worker service's event options, or undefined when the export is off. */
export async function workerEvents(
  config: Pick<MceConfig, 'receiver'>,
  env: NodeJS.ProcessEnv,
  onFailed: (error: unknown) => void,
  forced = false,
): Promise<WorkerEvents | undefined> {
  const settings = receiverSettings(config, env);
  if (!forced && !settings.exportOtlp.enabled) return undefined;
  const { EvaluationEventExporter, logsEndpoint } = await import('./evaluation-events.js');
  const endpoint = logsEndpoint(settings.exportOtlp.endpoint, env);
  const exporter = new EvaluationEventExporter(endpoint);
  return { options: { events: exporter, onEventsFailed: onFailed }, endpoint, shutdown: () => exporter.shutdown() };
}
