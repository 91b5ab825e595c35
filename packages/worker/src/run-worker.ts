/**
 * `mce worker` / `mce-worker`: runs a worker until SIGTERM or SIGINT (or an abort signal), serving /healthz,
 * /readyz and /metrics, then shuts down within the configured deadline.
 */
import { workerConfigFrom, type WorkerConfig } from './config.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import { createLogger, type Logger } from './logger.js';
import { WorkerMetrics } from './metrics.js';
import { awaitProcessor, isPendingProcessor, type PendingProcessor } from './pending-processor.js';
import type { BatchProcessor } from './processor.js';
import { MceWorker } from './worker.js';

export interface RunWorkerOptions {
  /**
   * Computes and stores a batch (`MCEWorkerService`). Not closed by runWorker: the caller owns it. A pending one (its
   * store not there yet) is tried every retry delay, the worker alive but not ready and consuming nothing meanwhile.
   */
  processor: BatchProcessor | PendingProcessor;
  /** Default: built from the environment alone (`workerConfigFrom({})`). */
  config?: WorkerConfig;
  logger?: Logger;
  /** Signals that start the graceful shutdown. Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** Aborting it starts the graceful shutdown too (for embedding and tests). */
  signal?: AbortSignal;
  /** Called once the worker is started (health server up, connecting). */
  onStarted?: (info: { worker: MceWorker; healthPort: number | undefined }) => void;
}

export interface RunWorkerResult {
  /**
   * 0 after a clean shutdown; 1 when the deadline passed with batches still in flight (they are redelivered); 2 when
   * it stopped on a failure retrying cannot mend (the broker refused the credentials).
   */
  exitCode: number;
  reason: string;
}

export async function runWorker(options: RunWorkerOptions): Promise<RunWorkerResult> {
  const config = options.config ?? workerConfigFrom({});
  const log = options.logger ?? createLogger();
  const metrics = new WorkerMetrics({ defaultMetrics: true });
  // A failure retrying cannot mend stops the worker as a signal would, with exit code 2 (bad configuration).
  let fatal: string | undefined;
  let stopNow: ((why: string) => void) | undefined;
  const onFatal = (reason: string) => {
    fatal ??= reason;
    stopNow?.(reason);
  };
  // Not ready until the worker exists (a pending processor may keep it from starting).
  let ready = () => false;
  let health: HealthServer | undefined;
  if (config.healthPort > 0) {
    health = await startHealthServer({ port: config.healthPort, isReady: () => ready(), registry: metrics.registry });
    log.info({ port: health.port }, 'health server listening');
  }

  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  // A second signal while shutting down ends the process at once; unacked messages are redelivered.
  const onSecondSignal = (signal: NodeJS.Signals) => {
    log.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  };
  const stopped = new Promise<string>((resolve) => {
    let done = false;
    const stop = (why: string) => {
      if (done) return;
      done = true;
      for (const name of signals) {
        process.off(name, stop);
        process.once(name, onSecondSignal);
      }
      resolve(why);
    };
    for (const name of signals) process.on(name, stop);
    stopNow = stop;
    if (options.signal?.aborted) stop('abort');
    options.signal?.addEventListener('abort', () => stop('abort'), { once: true });
  });

  const processor = isPendingProcessor(options.processor) ? await awaitProcessor(options.processor, config.retryDelayMs, log, stopped) : options.processor;
  if (!processor) {
    // Stopped before the store was there: nothing was consumed, nothing is in flight.
    const reason = await stopped;
    log.info({ reason }, 'shutting down');
    await health?.close();
    for (const name of signals) process.off(name, onSecondSignal);
    return { exitCode: 0, reason };
  }
  const worker = new MceWorker({ config, processor, logger: log, metrics, onFatal });
  ready = () => worker.isReady();
  log.info(
    { queue: config.queue, batchSize: config.batchSize, prefetch: config.prefetch, maxAttempts: config.maxAttempts },
    'worker started',
  );
  options.onStarted?.({ worker, healthPort: health?.port });
  const reason = await stopped;

  log.info({ reason, deadlineMs: config.shutdownDeadlineMs }, 'shutting down');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), config.shutdownDeadlineMs);
  });
  const finished = await Promise.race([worker.close().then(() => 'closed' as const), deadline]);
  clearTimeout(timer);
  if (finished === 'deadline') {
    log.error({ deadlineMs: config.shutdownDeadlineMs }, 'shutdown deadline passed: dropping the connection, unacked messages will be redelivered');
    worker.destroy();
  }
  await health?.close();
  for (const name of signals) process.off(name, onSecondSignal);
  return { exitCode: fatal ? 2 : finished === 'deadline' ? 1 : 0, reason };
}
