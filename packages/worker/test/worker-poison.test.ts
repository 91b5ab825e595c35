import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER, MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { openService, type ServiceFixture } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('worker: poison messages go to the dead-letter queue at once', () => {
  const queue = uniqueQueue('poison');
  let broker: Broker;
  let fixture: ServiceFixture;
  let worker: MceWorker;

  beforeAll(async () => {
    broker = new Broker();
    fixture = await openService(PG_URL, `worker_poison_${process.pid}`, ['known-1', 'known-2']);
    worker = new MceWorker({ config: testConfig(queue), processor: fixture.service, logger: log });
    await worker.ready();
  });

  afterAll(async () => {
    await worker?.close();
    await broker?.deleteQueues(queue);
    await broker?.close();
    await fixture?.close();
  });

  it('dead-letters malformed and unknown-session messages with the reason in the headers, stores the rest', async () => {
    await broker.publishRaw(queue, Buffer.from('not json at all'), { messageId: 'bad-json' });
    await broker.publishRaw(queue, Buffer.from('{"session":"x"}'), { messageId: 'bad-shape' });
    await broker.publishRaw(queue, Buffer.from('"known-1"'), { messageId: 'json-string', contentType: 'application/json' });
    await broker.publishRaw(queue, Buffer.from('{"session_ids":["known-2","ghost-1","ghost-2"]}'), { messageId: 'half-known' });
    await enqueueSessions(AMQP_URL, queue, ['known-1']);

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 4, 20_000, '4 dead-lettered messages');
    const dead = await broker.drain(`${queue}.dlq`);
    const byId = new Map(dead.map((message) => [message.messageId, message]));
    expect([...byId.keys()].sort()).toEqual(['bad-json', 'bad-shape', 'half-known', 'json-string']);
    // The copy is the JSON it arrived as, of the same type (a JSON string went out as text without its quotes).
    const jsonString = byId.get('json-string');
    expect([jsonString?.contentType, jsonString?.body, jsonString?.headers?.[HEADER.reason]]).toEqual(['application/json', 'known-1', 'malformed-message']);

    const badJson = byId.get('bad-json');
    expect(badJson?.headers?.[HEADER.reason]).toBe('malformed-message');
    expect(badJson?.headers?.[HEADER.attempts]).toBe(1);
    expect(badJson?.headers?.[HEADER.lastError]).toBe('body is not JSON: not json at all');
    expect(Buffer.from(badJson?.body as Buffer).toString()).toBe('not json at all');

    expect(byId.get('bad-shape')?.headers?.[HEADER.reason]).toBe('malformed-message');
    expect(byId.get('bad-shape')?.headers?.[HEADER.lastError]).toBe('body has neither "session_id" nor "session_ids"');

    const halfKnown = byId.get('half-known');
    expect(halfKnown?.headers?.[HEADER.reason]).toBe('unknown-session');
    expect(halfKnown?.headers?.[HEADER.attempts]).toBe(1);
    expect(halfKnown?.headers?.[HEADER.unknownSessions]).toBe('ghost-1,ghost-2');
    expect(halfKnown?.headers?.[HEADER.lastError]).toBe('unknown session: ghost-1, ghost-2');
    expect(JSON.parse(Buffer.from(halfKnown?.body as Buffer).toString())).toEqual({ session_ids: ['known-2', 'ghost-1', 'ghost-2'] });

    // The known sessions are stored (the one beside the unknown ones too); nothing waits in any queue.
    const k = fixture.resultsPerSession;
    await waitFor(async () => (await fixture.counts()).sessions === 2, 10_000, '2 stored sessions');
    expect(await fixture.counts()).toEqual({ results: 2 * k, sessions: 2, min: k, max: k });
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.depth(`${queue}.retry`)).toBe(0);
    const text = await worker.metrics.registry.metrics();
    expect(text).toContain('mce_worker_messages_dead_lettered_total{reason="malformed-message"} 3');
    expect(text).toContain('mce_worker_messages_dead_lettered_total{reason="unknown-session"} 1');
    expect(text).toContain('mce_worker_messages_processed_total 1');
    // The batches held 4 sessions (however they were split), 2 of them stored: the size counts the unknown ones too.
    expect(text).toContain('mce_worker_batch_size_sum 4');
    expect(text).toContain('mce_worker_sessions_processed_total 2');
  });
});
