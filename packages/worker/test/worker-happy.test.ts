import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, WorkerMetrics, createLogger, enqueueSessions, startHealthServer, type HealthServer } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { PgResultsProcessor } from './support/pg-processor.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('worker: happy path', () => {
  const queue = uniqueQueue('happy');
  const sessions = Array.from({ length: 95 }, (_, i) => `happy-s${i}`);
  let broker: Broker;
  let processor: PgResultsProcessor;
  let worker: MceWorker;
  let health: HealthServer;

  beforeAll(async () => {
    broker = new Broker();
    processor = await PgResultsProcessor.create(PG_URL, `worker_happy_${process.pid}`, sessions);
    const metrics = new WorkerMetrics();
    worker = new MceWorker({ config: testConfig(queue, { batchSize: 10, prefetch: 20 }), processor, logger: log, metrics });
    health = await startHealthServer({ port: 0, host: '127.0.0.1', isReady: () => worker.isReady(), registry: metrics.registry });
    await worker.ready();
  });

  afterAll(async () => {
    await worker?.close();
    await health?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await processor?.close();
  });

  it('stores every session once, acks every message and leaves the queue empty', async () => {
    // 80 single-session messages, then the last 15 sessions as 3 messages of 5.
    const single = await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 80));
    const multi = await enqueueSessions(AMQP_URL, queue, sessions.slice(80), { perMessage: 5 });
    expect(single).toEqual({ messages: 80, sessions: 80 });
    expect(multi).toEqual({ messages: 3, sessions: 15 });

    await waitFor(async () => (await processor.counts()).rows === 95, 20_000, '95 stored sessions');
    await waitFor(async () => (await worker.metrics.messagesProcessed.get()).values[0]?.value === 83, 5000, '83 acked messages');
    expect(await processor.counts()).toEqual({ rows: 95, sessions: 95, writes: 95 });
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.depth(`${queue}.retry`)).toBe(0);
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);

    const text = await worker.metrics.registry.metrics();
    expect(text).toContain('mce_worker_messages_processed_total 83');
    expect(text).toContain('mce_worker_sessions_processed_total 95');
    expect(text).toContain('mce_worker_judge_tokens_total 950');
    expect(text).toMatch(/mce_worker_judge_cost_usd_total 0\.09\d*/);
    expect(text).toContain('mce_worker_batch_size_sum 95');
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
    const readyz = await fetch(`${base}/readyz`);
    expect(readyz.status).toBe(200);
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
