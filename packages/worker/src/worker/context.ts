/** What every part of the worker shares: its configuration, log, metrics and the state of the stop. */
import type { WorkerConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { WorkerMetrics } from '../metrics.js';
import type { OutcomeTally } from '../outcome-tally.js';
import type { RepeatLimit } from '../repeat-limit.js';
import type { QueueNames } from '../topology.js';

export interface WorkerContext {
  config: WorkerConfig;
  log: Logger;
  metrics: WorkerMetrics;
  queues: QueueNames;
  /** Counts each message once when its outcome is settled, whatever the broker cuts redelivered. */
  tally: OutcomeTally;
  /** Failures that repeat while a service is down (moves, queue declarations): one line per window and a summary. */
  repeats: RepeatLimit;
  /** Set when the graceful stop begins: new deliveries go back to the queue, waits end early. */
  stopping: { draining: boolean };
}
