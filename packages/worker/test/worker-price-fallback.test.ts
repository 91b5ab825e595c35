/**
 * The price-fallback warning reaches the worker's log: a session whose LLM calls no price table knows is priced like
 * gpt-4o, and the worker says so (session, models and call counts) when its batch is stored, as `mce compute` does
 * on stderr; a session whose models have a price is not named. RabbitMQ and PostgreSQL.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '@mce/core';
import { MceWorker, WorkerMetrics, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { openService, type ServiceFixture } from './support/service.js';
import { testSession } from './support/sessions.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));

/** The test session with its three calls made by a model no price table knows. */
function unpriced(id: string): Session {
  const s = testSession(id, 1);
  return { ...s, llmCalls: s.llmCalls.map((c) => ({ ...c, name: 'chat acme-private-7b', requestModel: 'acme-private-7b' })) };
}

describe.skipIf(!available)('worker: calls priced like gpt-4o', () => {
  const queue = uniqueQueue('price-fallback');
  const lines: Record<string, unknown>[] = [];
  let broker: Broker;
  let fixture: ServiceFixture;
  let worker: MceWorker;

  beforeAll(async () => {
    broker = new Broker();
    fixture = await openService(PG_URL, `worker_price_${process.pid}`, ['pf-priced']);
    await fixture.client.store.writeSessions([unpriced('pf-unpriced')]);
    const destination = new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
    worker = new MceWorker({ config: testConfig(queue), processor: fixture.service, logger: createLogger({ level: 'warn', destination: destination as never }), metrics: new WorkerMetrics() });
    await worker.ready();
  });

  afterAll(async () => {
    await worker?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await fixture?.close();
  });

  it('logs one warning for the session priced like gpt-4o, naming its model and calls', async () => {
    await enqueueSessions(AMQP_URL, queue, ['pf-priced', 'pf-unpriced']);
    const processed = async () => (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;
    await waitFor(async () => (await processed()) === 2, 30_000, '2 acked messages');
    const warned = lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('priced like gpt-4o'));
    expect(warned.map((l) => [l.sessionId, l.models, l.msg])).toEqual([
      ['pf-unpriced', { 'acme-private-7b': 3 }, "3 LLM call(s) priced like gpt-4o: no price for 'acme-private-7b' (3 calls); their Cost is an estimate at gpt-4o's price"],
    ]);
  });
});
