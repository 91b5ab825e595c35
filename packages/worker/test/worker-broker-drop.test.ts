import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, closeConnections, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { PgResultsProcessor } from './support/pg-processor.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('worker: the broker drops every connection in mid-run', () => {
  const queue = uniqueQueue('drop');
  const connectionName = `mce-test-drop-${process.pid}`;
  const sessions = Array.from({ length: 300 }, (_, i) => `drop-s${i}`);
  let broker: Broker;
  let processor: PgResultsProcessor;
  let worker: MceWorker;

  beforeAll(async () => {
    broker = new Broker();
    processor = await PgResultsProcessor.create(PG_URL, `worker_drop_${process.pid}`, sessions);
  });

  afterAll(async () => {
    await worker?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await processor?.close();
  });

  it('reconnects, re-declares the queues and stores every session exactly once', async () => {
    await enqueueSessions(AMQP_URL, queue, sessions);
    processor.delayMs = 100; // batches are in flight when the connection goes
    worker = new MceWorker({
      config: testConfig(queue, { batchSize: 10, prefetch: 20, reconnectMaxDelayMs: 500 }),
      processor,
      logger: log,
      connectionName,
    });
    await worker.ready();

    await waitFor(async () => (await processor.counts()).rows >= 40, 15_000, 'some sessions stored');
    expect(await closeConnections(connectionName)).toBe(1);
    await waitFor(async () => worker.isReady() && (await processor.counts()).rows >= 150, 15_000, 'consuming again after the first drop');
    // The retry and dead-letter queues were declared again on the new connection: delete them, drop, check.
    await broker.connection.queueDelete({ queue: `${queue}.dlq` });
    expect(await closeConnections(connectionName)).toBe(1);
    await waitFor(async () => (await worker.metrics.connections.get()).values[0]?.value === 3, 15_000, 'the second reconnect');
    await waitFor(async () => (await processor.counts()).rows === 300, 30_000, 'all 300 sessions stored');

    const counts = await processor.counts();
    // One result row per session: redelivered messages overwrote their rows instead of adding new ones.
    expect(counts.rows).toBe(300);
    expect(counts.sessions).toBe(300);
    await waitFor(async () => (await broker.depth(queue)) === 0, 10_000, 'an empty queue');
    await worker.close();
    // Nothing unacked was left behind: after the consumer's channel closed, the queue is still empty.
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.connection.queueDeclare({ queue: `${queue}.dlq`, passive: true })).toMatchObject({ messageCount: 0 });
    // Batches in flight at a drop were stored but not acked, redelivered and stored again under the same run ids:
    // overwrites (writes > rows), bounded by the prefetch (20) per drop.
    expect(counts.writes - counts.rows).toBeGreaterThan(0);
    expect(counts.writes - counts.rows).toBeLessThanOrEqual(2 * 20);
  });
});
