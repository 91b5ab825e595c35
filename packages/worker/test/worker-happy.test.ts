import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, WorkerMetrics, createLogger, enqueueSessions, startHealthServer, type HealthServer } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { openService, type ServiceFixture } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('worker: happy path with MCEWorkerService and the PostgreSQL store', () => {
  const queue = uniqueQueue('happy');
  const sessions = Array.from({ length: 95 }, (_, i) => `happy-s${i}`);
  let broker: Broker;
  let fixture: ServiceFixture;
  let worker: MceWorker;
  let health: HealthServer;

  beforeAll(async () => {
    broker = new Broker();
    fixture = await openService(PG_URL, `worker_happy_${process.pid}`, sessions);
    const metrics = new WorkerMetrics();
    worker = new MceWorker({ config: testConfig(queue, { batchSize: 10, prefetch: 20 }), processor: fixture.service, logger: log, metrics });
    health = await startHealthServer({ port: 0, host: '127.0.0.1', isReady: () => worker.isReady(), registry: metrics.registry });
    await worker.ready();
  });

  afterAll(async () => {
    await worker?.close();
    await health?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await fixture?.close();
  });

  it('stores every session once, acks every message and leaves the queue empty', async () => {
    // 80 single-session messages, then the last 15 sessions as 3 messages of 5.
    expect(await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 80))).toEqual({ messages: 80, sessions: 80 });
    expect(await enqueueSessions(AMQP_URL, queue, sessions.slice(80), { perMessage: 5 })).toEqual({ messages: 3, sessions: 15 });

    const processed = async () => (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;
    await waitFor(async () => (await processed()) === 83, 30_000, '83 acked messages');
    const k = fixture.resultsPerSession;
    expect(k).toBeGreaterThan(10);
    // Every session has its full set of results, once.
    expect(await fixture.counts()).toEqual({ results: 95 * k, sessions: 95, min: k, max: k });
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.depth(`${queue}.retry`)).toBe(0);
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);

    const text = await worker.metrics.registry.metrics();
    expect(text).toContain('mce_worker_messages_processed_total 83');
    expect(text).toContain('mce_worker_sessions_processed_total 95');
    expect(text).toContain('mce_worker_batch_size_sum 95');
    expect(text).toContain('mce_worker_broker_connections_total 1');
    // No batch is larger than batch_size plus the rest of one multi-session message.
    const batches = Number(/mce_worker_batch_size_count (\d+)/.exec(text)?.[1]);
    expect(batches).toBeGreaterThanOrEqual(10);
    expect(Number(/mce_worker_batch_size_bucket\{le="20"\} (\d+)/.exec(text)?.[1])).toBe(batches);
  });

  it('reports health, readiness and metrics over HTTP', async () => {
    const base = `http://127.0.0.1:${health.port}`;
    const healthz = await fetch(`${base}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.text()).toBe('ok\n');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('mce_worker_sessions_per_second');
    expect((await fetch(`${base}/nope`)).status).toBe(404);

    await worker.close();
    expect(worker.isReady()).toBe(false);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
