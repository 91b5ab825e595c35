import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, MCEWorkerService, defaultMceConfig } from '@mce/client';
import { PostgresStore } from '@mce/store-postgres';
import { MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { openService, type ServiceFixture } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('two workers on one queue', () => {
  const queue = uniqueQueue('two');
  const sessions = Array.from({ length: 200 }, (_, i) => `two-s${i}`);
  let broker: Broker;
  let fixture: ServiceFixture;
  let second: { client: MCEClient; store: PostgresStore } | undefined;
  let workers: MceWorker[] = [];

  beforeAll(async () => {
    broker = new Broker();
    fixture = await openService(PG_URL, `worker_two_${process.pid}`, sessions);
    // The second worker has its own client and store connection, as a second process would.
    const store = new PostgresStore(PG_URL, { schema: fixture.schema, logger: { warn: () => undefined } });
    second = { store, client: await MCEClient.open({ config: defaultMceConfig(), store, cache: false, env: {} }) };
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await second?.client.close();
    await second?.store.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await fixture?.close();
  });

  it('share the messages and store each session exactly once', async () => {
    const services = [fixture.service, new MCEWorkerService(second!.client)];
    workers = services.map(
      (service, n) => new MceWorker({ config: testConfig(queue, { batchSize: 10, prefetch: 20 }), processor: service, logger: log, connectionName: `mce-test-two-${n}` }),
    );
    await Promise.all(workers.map((worker) => worker.ready()));
    await enqueueSessions(AMQP_URL, queue, sessions);

    const processed = async (worker: MceWorker) => (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;
    await waitFor(async () => (await processed(workers[0]!)) + (await processed(workers[1]!)) === 200, 60_000, '200 acks');
    // Both took part; no message reached both (200 acks in all) and every session has its results once.
    expect(await processed(workers[0]!)).toBeGreaterThan(0);
    expect(await processed(workers[1]!)).toBeGreaterThan(0);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 200 * k, sessions: 200, min: k, max: k });
    expect(await broker.depth(queue)).toBe(0);
  });
});
