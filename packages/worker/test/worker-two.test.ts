import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { PgResultsProcessor } from './support/pg-processor.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('two workers on one queue', () => {
  const queue = uniqueQueue('two');
  const sessions = Array.from({ length: 400 }, (_, i) => `two-s${i}`);
  let broker: Broker;
  let processor: PgResultsProcessor;
  let workers: MceWorker[] = [];

  beforeAll(async () => {
    broker = new Broker();
    processor = await PgResultsProcessor.create(PG_URL, `worker_two_${process.pid}`, sessions);
    processor.delayMs = 20;
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await broker?.deleteQueues(queue);
    await broker?.close();
    await processor?.close();
  });

  it('share the messages and store each session exactly once', async () => {
    workers = [1, 2].map(
      (n) => new MceWorker({ config: testConfig(queue, { batchSize: 10, prefetch: 20 }), processor, logger: log, connectionName: `mce-test-two-${n}` }),
    );
    await Promise.all(workers.map((worker) => worker.ready()));
    await enqueueSessions(AMQP_URL, queue, sessions);

    await waitFor(async () => (await processor.counts()).rows === 400, 20_000, '400 stored sessions');
    const processed = async (worker: MceWorker) => (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;
    await waitFor(async () => (await processed(workers[0]!)) + (await processed(workers[1]!)) === 400, 5000, '400 acks');
    // Both took part, and no session was computed twice (writes = rows: no message reached both).
    expect(await processed(workers[0]!)).toBeGreaterThan(0);
    expect(await processed(workers[1]!)).toBeGreaterThan(0);
    expect(await processor.counts()).toEqual({ rows: 400, sessions: 400, writes: 400 });
    expect(await broker.depth(queue)).toBe(0);
  });
});
