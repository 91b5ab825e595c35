/** Broker helpers for the worker tests: unique queue names, queue depth, reading and cleaning queues. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Connection, type SyncMessage } from 'rabbitmq-client';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { queueNames, type WorkerConfig } from '@mce/worker';
import { AMQP_URL } from '../../../../test-support/services.js';

const run = promisify(execFile);

export function uniqueQueue(name: string): string {
  return `mce_test_${name}_${process.pid}_${Date.now().toString(36)}`;
}

export function testConfig(queue: string, overrides: Partial<WorkerConfig> = {}): WorkerConfig {
  return {
    amqpUrl: AMQP_URL,
    queue,
    prefetch: 20,
    batchSize: 10,
    batchMaxWaitMs: 50,
    maxAttempts: 3,
    retryDelayMs: 200,
    shutdownDeadlineMs: 10_000,
    healthPort: 0,
    reconnectMaxDelayMs: 1000,
    queueArguments: {},
    ...overrides,
  };
}

export class Broker {
  readonly connection = new Connection({ url: AMQP_URL, connectionName: 'mce-test-admin', retryLow: 100, retryHigh: 1000 });

  constructor() {
    this.connection.on('error', () => undefined);
  }

  /** Messages ready in the queue (not counting unacked ones); 0 for a queue that does not exist. */
  async depth(queue: string): Promise<number> {
    try {
      const { messageCount } = await this.connection.queueDeclare({ queue, passive: true });
      return messageCount;
    } catch (error) {
      if ((error as { code?: string }).code === 'NOT_FOUND') return 0;
      throw error;
    }
  }

  /** Takes every message out of the queue. */
  async drain(queue: string): Promise<SyncMessage[]> {
    const messages: SyncMessage[] = [];
    for (;;) {
      const message = await this.connection.basicGet({ queue, noAck: true });
      if (!message) return messages;
      messages.push(message);
    }
  }

  async publishRaw(queue: string, body: string | Buffer, envelope: Record<string, unknown> = {}): Promise<void> {
    const publisher = this.connection.createPublisher({ confirm: true });
    await publisher.send({ routingKey: queue, durable: true, ...envelope }, body);
    await publisher.close();
  }

  async deleteQueues(queue: string): Promise<void> {
    const names = queueNames(queue);
    for (const name of [names.main, names.retry, names.dlq]) await this.connection.queueDelete({ queue: name }).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

/**
 * Makes the broker close the client connections whose connection name starts with `prefix`, as a broker restart or
 * `rabbitmqctl close_all_connections` would; only those, because other test files share the broker. Returns how many.
 */
export async function closeConnections(prefix: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '--quiet']);
  const pids = stdout
    .split('\n')
    .filter((line) => line.includes(`{"connection_name","${prefix}`))
    .map((line) => line.split('\t')[0] ?? '')
    .filter((pid) => pid.startsWith('<'));
  for (const pid of pids) await run('rabbitmqctl', ['close_connection', pid, 'test']);
  return pids.length;
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A suite's broker connection and per-test clean-ups, as hooks of the calling `describe`: `assign` receives the
 * broker before the suite's tests, the clean-ups pushed onto the returned list run after each test (last first), and
 * the broker closes after the suite (after the suite's own afterAll hooks, which may still use it).
 */
export function useBroker(assign: (broker: Broker) => void): (() => Promise<void>)[] {
  let broker: Broker | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(() => {
    broker = new Broker();
    assign(broker);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await broker?.close();
  });
  return cleanups;
}
