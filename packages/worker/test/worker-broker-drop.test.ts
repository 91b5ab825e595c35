import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { capturedLog, WARN } from './support/log-lines.js';
import { Broker, closeConnections, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { FlakyProcessor, openService, type ServiceFixture } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));

describe.skipIf(!available)('worker: the broker drops every connection in mid-run', () => {
  const queue = uniqueQueue('drop');
  const connectionName = `mce-test-drop-${process.pid}`;
  const sessions = Array.from({ length: 300 }, (_, i) => `drop-s${i}`);
  let broker: Broker;
  let fixture: ServiceFixture;
  let worker: MceWorker;

  beforeAll(async () => {
    broker = new Broker();
    fixture = await openService(PG_URL, `worker_drop_${process.pid}`, sessions);
  });

  afterAll(async () => {
    await worker?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await fixture?.close();
  });

  it('reconnects, re-declares the queues, stores every session exactly once and counts every message once', async () => {
    await enqueueSessions(AMQP_URL, queue, sessions);
    const processor = new FlakyProcessor(fixture.service);
    processor.delayMs = 100; // batches are in flight when the connection goes
    const log = capturedLog();
    worker = new MceWorker({
      config: testConfig(queue, { batchSize: 10, prefetch: 50, reconnectMaxDelayMs: 500 }),
      processor,
      logger: log.logger,
      connectionName,
    });
    await worker.ready();
    const connections = async () => (await worker.metrics.connections.get()).values[0]?.value ?? 0;
    const processed = async () => (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;
    const sessionsStored = async () => (await worker.metrics.sessionsProcessed.get()).values[0]?.value ?? 0;

    await waitFor(async () => (await fixture.counts()).sessions >= 40, 30_000, 'some sessions stored');
    // Drop the connection under a batch that is certainly in flight (on a loaded machine the queue could otherwise
    // drain before rabbitmqctl acts): that batch is stored after the drop, its acks are lost, and it comes back.
    let release = (): void => undefined;
    processor.gate = new Promise<void>((resolve) => (release = resolve));
    await waitFor(async () => processor.held > 0, 30_000, 'a batch held in flight');
    expect(await closeConnections(connectionName)).toBe(1);
    processor.gate = undefined;
    release();
    await waitFor(async () => (await connections()) === 2 && (await fixture.counts()).sessions >= 150, 30_000, 'consuming again after the first drop');
    // The retry and dead-letter queues are declared again on every connection: delete one, drop, check it is back.
    await broker.connection.queueDelete({ queue: `${queue}.dlq` });
    expect(await closeConnections(connectionName)).toBe(1);
    await waitFor(async () => (await connections()) === 3, 30_000, 'the second reconnect');
    await waitFor(async () => (await broker.depth(queue)) === 0 && (await fixture.counts()).sessions === 300, 60_000, 'all 300 sessions stored');
    await worker.close();

    // Every session has its results exactly once: messages of the batches in flight at a drop were stored, not acked,
    // redelivered and stored again under the same run ids, which overwrote them.
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 300 * k, sessions: 300, min: k, max: k });
    // Some were stored twice (the batch held across the first cut at least), yet each message is counted once: the
    // counter equals the messages (it counted acked deliveries: 12,749 for 12,149 messages after cuts).
    expect(await sessionsStored()).toBeGreaterThanOrEqual(300 + 10);
    expect(await processed()).toBe(300);
    // A cut is one warning, its reconnect one line; the acks that failed on the closed channel (at least the ten of
    // the held batch: each was a warning) are one line and its summary.
    const warnings = log.lines.filter((line) => line.level >= WARN).map((line) => line.msg);
    expect(warnings).toEqual([
      'lost the connection to the broker: reconnecting; unacked messages will be delivered again',
      'lost the connection to the broker: reconnecting; unacked messages will be delivered again',
    ]);
    expect(log.lines.filter((line) => line.msg.startsWith('reconnected to the broker after'))).toHaveLength(2);
    const acks = log.lines.filter((line) => line.msg.startsWith('an ack could not be sent'));
    expect(acks.length).toBeGreaterThanOrEqual(1);
    expect(acks.length).toBeLessThanOrEqual(2);
    expect(log.lines.length).toBeLessThan(20);
    // Nothing unacked was left behind: with the worker's channel closed, the queue is still empty.
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.connection.queueDeclare({ queue: `${queue}.dlq`, passive: true })).toMatchObject({ messageCount: 0 });
  });
});
