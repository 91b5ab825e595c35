/**
 * The worker's settings: the `worker:` section of `mce_config.yaml` (snake_case) with environment overrides, turned
 * into one camelCase object with every default filled in. The config loader validates the section's shape against
 * the JSON Schema; this module applies the defaults, the environment and the cross-field rules.
 */
import { redactUrl } from '@mce/core';

import { MceError } from '@mce/core';

export interface WorkerConfig {
  amqpUrl: string;
  /** The main queue; the retry queue is `<queue>.retry`, the dead-letter queue `<queue>.dlq`. */
  queue: string;
  /** Unacknowledged messages the broker may send this worker at once (≥ batchSize). */
  prefetch: number;
  /** Sessions per `processBatch` call. */
  batchSize: number;
  /** How long a partly filled batch waits for more messages before it is processed. */
  batchMaxWaitMs: number;
  /** Processing attempts of a message before it is dead-lettered. */
  maxAttempts: number;
  /** Time a failed message rests in the retry queue before it comes back. */
  retryDelayMs: number;
  /** Time SIGTERM/SIGINT leaves the in-flight batches to finish before the worker gives up on them. */
  shutdownDeadlineMs: number;
  /** Port of /healthz, /readyz and /metrics; 0 = no HTTP server. */
  healthPort: number;
  /** Ceiling of the exponential reconnect backoff. */
  reconnectMaxDelayMs: number;
  /**
   * Arguments of the main queue, declared with them (RabbitMQ refuses a declaration whose arguments differ from the
   * queue's): for a queue the pipeline declares as a quorum queue, `{ 'x-queue-type': 'quorum', … }`. None by default.
   */
  queueArguments: Record<string, string | number | boolean>;
}

export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';
export const DEFAULT_QUEUE = 'new_session_to_mce';

const DEFAULT_BATCH_SIZE = 50;

export class WorkerConfigError extends MceError {
  readonly kind = 'bad-input' as const;
  constructor(readonly problems: string[]) {
    super(`invalid worker configuration: ${problems.join('; ')}`);
    this.name = 'WorkerConfigError';
  }
}

type IntegerField = Exclude<keyof WorkerConfig, 'amqpUrl' | 'queue' | 'queueArguments'>;

/** snake_case name in YAML → field, smallest allowed value. */
const INTEGER_FIELDS: Record<IntegerField, { yaml: string; min: number }> = {
  prefetch: { yaml: 'prefetch', min: 1 },
  batchSize: { yaml: 'batch_size', min: 1 },
  batchMaxWaitMs: { yaml: 'batch_max_wait_ms', min: 0 },
  maxAttempts: { yaml: 'max_attempts', min: 1 },
  retryDelayMs: { yaml: 'retry_delay_ms', min: 0 },
  shutdownDeadlineMs: { yaml: 'shutdown_deadline_ms', min: 0 },
  healthPort: { yaml: 'health_port', min: 0 },
  reconnectMaxDelayMs: { yaml: 'reconnect_max_delay_ms', min: 0 },
};

/** `batch_size` → `MCE_WORKER_BATCH_SIZE`. */
export function envNameFor(yamlKey: string): string {
  return `MCE_WORKER_${yamlKey.toUpperCase()}`;
}

/**
 * Builds the worker configuration from the parsed `worker:` section (snake_case keys; camelCase keys are accepted
 * too) and the environment. Environment wins over the file: `MCE_AMQP_URL` (else `RABBITMQ_URL`) for the broker,
 * `MCE_WORKER_<KEY>` for every other key (e.g. `MCE_WORKER_BATCH_SIZE=100`). Throws WorkerConfigError listing every
 * problem.
 */
export function workerConfigFrom(
  section: Record<string, unknown> = {},
  env: Record<string, string | undefined> = process.env,
): WorkerConfig {
  const problems: string[] = [];
  const pick = (yaml: string, camel: string): unknown => {
    const fromEnv = env[envNameFor(yaml)];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    return section[yaml] ?? section[camel];
  };

  const amqpUrl = nonEmpty(env.MCE_AMQP_URL) ?? nonEmpty(env.RABBITMQ_URL) ?? section.amqp_url ?? section.amqpUrl ?? DEFAULT_AMQP_URL;
  const amqpSource = nonEmpty(env.MCE_AMQP_URL) ? 'MCE_AMQP_URL' : nonEmpty(env.RABBITMQ_URL) ? 'RABBITMQ_URL' : 'amqp_url';
  if (typeof amqpUrl !== 'string' || !/^amqps?:\/\//.test(amqpUrl)) problems.push(`${amqpSource} must be an amqp:// or amqps:// URL`);
  else {
    const malformed = malformedUrl(amqpUrl);
    if (malformed) problems.push(`${amqpSource} ${redactUrl(amqpUrl)}: ${malformed}`);
  }
  const queue = pick('queue', 'queue') ?? DEFAULT_QUEUE;
  if (typeof queue !== 'string' || queue.length === 0) problems.push('queue must be a non-empty string');

  const integers = {} as Record<IntegerField, number | undefined>;
  for (const [field, { yaml, min }] of Object.entries(INTEGER_FIELDS) as [IntegerField, { yaml: string; min: number }][]) {
    const raw = pick(yaml, field);
    if (raw === undefined || raw === null) continue;
    const value = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      problems.push(`${yaml} must be an integer ≥ ${min} (got ${JSON.stringify(raw)})`);
      continue;
    }
    integers[field] = value;
  }
  if (integers.healthPort !== undefined && integers.healthPort > 65535) problems.push('health_port must be ≤ 65535');
  const queueArguments = section.queue_arguments ?? section.queueArguments ?? {};
  const argumentValue = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (typeof queueArguments !== 'object' || queueArguments === null || Array.isArray(queueArguments) || !Object.values(queueArguments).every(argumentValue)) {
    problems.push('queue_arguments must map argument names to strings, numbers or booleans');
  }

  const batchSize = integers.batchSize ?? DEFAULT_BATCH_SIZE;
  const prefetch = integers.prefetch ?? 2 * batchSize;
  if (prefetch < batchSize) problems.push(`prefetch (${prefetch}) must be ≥ batch_size (${batchSize})`);
  if (problems.length > 0) throw new WorkerConfigError(problems);

  return {
    amqpUrl: amqpUrl as string,
    queue: queue as string,
    prefetch,
    batchSize,
    batchMaxWaitMs: integers.batchMaxWaitMs ?? 200,
    maxAttempts: integers.maxAttempts ?? 5,
    retryDelayMs: integers.retryDelayMs ?? 5000,
    shutdownDeadlineMs: integers.shutdownDeadlineMs ?? 30000,
    healthPort: integers.healthPort ?? 9464,
    reconnectMaxDelayMs: integers.reconnectMaxDelayMs ?? 30000,
    queueArguments: { ...(queueArguments as Record<string, string | number | boolean>) },
  };
}

/**
 * Why the broker client could not read `url`, or undefined: the driver decodes user and password itself and says only
 * "URI malformed" (a `%` not followed by two hex digits).
 */
function malformedUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  for (const [part, value] of [['user name', parsed.username], ['password', parsed.password]] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      return `the ${part} is not percent-encoded (a % must be written %25)`;
    }
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
