/**
 * The receiver in queue mode: a session that completes is published to the worker queue, and a worker computes and
 * stores its results (RabbitMQ and PostgreSQL, real).
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RECEIVER_SETTINGS, MCEClient, MCEWorkerService, defaultMceConfig, encodeTraceRequest, queueEvaluator, receiverPipeline, workerEvents, type ReceiverPipeline, type WorkerEvents } from '@mce/client';
import { PostgresStore } from '@mce/store-postgres';
import { LogSink } from '../../client/test/receiver/log-sink.js';
import * as worker from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const silent = { info() {}, warn() {}, error() {} };
const LINES = readFileSync(new URL('../../ingest/test/data/multi-agent/genai.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe.skipIf(!available)('receiver: evaluate through the worker queue', () => {
  const queue = uniqueQueue('receiver');
  const schema = `receiver_queue_${process.pid}`;
  let admin: pg.Client;
  let store: PostgresStore;
  let client: MCEClient;
  let pipeline: ReceiverPipeline;
  let consumer: worker.MceWorker;
  let broker: Broker;
  let sink: LogSink;
  let events: WorkerEvents | undefined;
  const eventFailures: unknown[] = [];

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    store = new PostgresStore(PG_URL, { schema, logger: silent, maxConnections: 4 });
    await store.init();
    client = await MCEClient.open({ config: defaultMceConfig(), store, cache: false, env: {}, logger: silent });
    broker = new Broker();
    const evaluator = queueEvaluator(worker, { queue }, { MCE_AMQP_URL: AMQP_URL });
    pipeline = receiverPipeline(client, { settings: { ...DEFAULT_RECEIVER_SETTINGS, evaluate: 'queue', sessionIdleMs: 100 }, env: {}, logger: silent, evaluator });
    // The worker sends the results it stores as evaluation events (receiver.export_otlp), as the receiver does in process.
    sink = await new LogSink().start();
    events = await workerEvents({ receiver: { export_otlp: { enabled: true, endpoint: sink.url } } }, {}, (error) => eventFailures.push(error));
    consumer = new worker.MceWorker({ config: testConfig(queue), processor: new MCEWorkerService(client, events?.options), logger: worker.createLogger({ level: 'silent' }), metrics: new worker.WorkerMetrics() });
    await consumer.ready();
  });

  afterAll(async () => {
    await pipeline?.close();
    await consumer?.close();
    await events?.shutdown();
    await sink?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await client?.close();
    await store?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('the complete session is published and a worker stores its results', async () => {
    for (const line of LINES) {
      const res = await pipeline.app.request('/v1/traces', { method: 'POST', body: encodeTraceRequest(line) as unknown as ArrayBuffer, headers: { 'content-type': 'application/x-protobuf' } });
      expect(res.status).toBe(200);
    }
    await waitFor(async () => pipeline.receiver.stats.evaluatedSessions === 1, 10_000, 'the session published');
    await waitFor(async () => (await client.getMetrics('trip-2026-001').catch(() => [])).length > 10, 30_000, 'results stored by the worker');
    const duration = (await client.getMetrics('trip-2026-001')).find((r) => r.name === 'Duration' && r.level === 'Session');
    expect(duration?.result).toBe(9000);
    // The worker sent one event per stored result, the session's Duration among them with its value.
    const stored = (await client.getMetrics('trip-2026-001', { recursive: true })).length;
    await waitFor(async () => sink.records.length >= stored, 10_000, 'the evaluation events');
    expect(sink.records).toHaveLength(stored);
    expect(sink.records.every((r) => r.eventName === 'gen_ai.evaluation.result')).toBe(true);
    const durationEvent = sink.records.find((r) => r.attributes['gen_ai.evaluation.name'] === 'Duration' && r.attributes['mce.metric.level'] === 'Session');
    expect(durationEvent?.attributes['gen_ai.evaluation.score.value']).toBe(9000);
    expect(eventFailures).toEqual([]);
    // Published again (the session got more spans): the same run, so its results are overwritten, not added beside.
    const before = (await client.queryResults({ sessionIds: ['trip-2026-001'], limit: 1000 })).map((r) => r.result.id).sort();
    const last = LINES[LINES.length - 1]!;
    const again = await pipeline.app.request('/v1/traces', { method: 'POST', body: encodeTraceRequest(last) as unknown as ArrayBuffer, headers: { 'content-type': 'application/x-protobuf' } });
    expect(again.status).toBe(200);
    await waitFor(async () => pipeline.receiver.stats.evaluatedSessions === 2, 10_000, 'the session published again');
    await waitFor(async () => (await broker.depth(queue)) === 0, 10_000, 'the second message consumed');
    await new Promise((r) => setTimeout(r, 1_500)); // its batch stored
    const after = (await client.queryResults({ sessionIds: ['trip-2026-001'], limit: 1000 })).map((r) => r.result.id).sort();
    expect(after).toEqual(before);
  }, 60_000);
});
