/**
 * Moving messages to the retry and dead-letter queues when things are unusual: a move the broker refuses (the message
 * waits and is requeued, it does not loop; the worker says it is not ready), a dead-letter reason too long for one
 * AMQP frame, a message an operator replayed from the dead-letter queue, and a change of the retry delay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER, MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, useBroker, waitFor } from './support/amqp.js';
import { FlakyProcessor, openService, type ServiceFixture } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!available)('worker: moving messages to the retry and dead-letter queues', () => {
  let broker: Broker;
  let fixture: ServiceFixture;
  const cleanups = useBroker((b) => (broker = b));

  beforeAll(async () => {
    fixture = await openService(PG_URL, `worker_moves_${process.pid}`, ['known-1']);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  function start(queue: string, processor: FlakyProcessor, overrides: Parameters<typeof testConfig>[1] = {}): MceWorker {
    const worker = new MceWorker({ config: testConfig(queue, overrides), processor, logger: log });
    cleanups.push(() => broker.deleteQueues(queue), () => worker.close());
    return worker;
  }

  const counter = async (worker: MceWorker, name: string) =>
    Number(new RegExp(`${name} (\\d+)`).exec(await worker.metrics.registry.metrics())?.[1] ?? 0);

  it('requeues a message it cannot move only after the retry delay, reports not ready, and recovers', async () => {
    const queue = uniqueQueue('moves_refused');
    // A dead-letter queue declared by someone else with other arguments: the worker's declaration is refused, and
    // with it every publish of its publisher (which declares the queues it sends to).
    await broker.connection.queueDeclare({ queue: `${queue}.dlq`, durable: true, arguments: { 'x-max-length': 5 } });
    const processor = new FlakyProcessor(fixture.service);
    const worker = start(queue, processor, { retryDelayMs: 400 });
    await worker.ready();
    await broker.publishRaw(queue, Buffer.from('not json'), { messageId: 'poison' });

    await waitFor(async () => (await counter(worker, 'mce_worker_moves_failed_total')) >= 1, 10_000, 'a refused move');
    expect(worker.isReady()).toBe(false);
    const first = await counter(worker, 'mce_worker_moves_failed_total');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // About one attempt per 400 ms, not thousands: the message waits before it is requeued.
    const inASecond = (await counter(worker, 'mce_worker_moves_failed_total')) - first;
    expect(inASecond).toBeGreaterThanOrEqual(1);
    expect(inASecond).toBeLessThanOrEqual(4);
    expect(processor.calls).toBe(0); // a malformed message never reaches processBatch

    await broker.connection.queueDelete({ queue: `${queue}.dlq` });
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 10_000, 'the message dead-lettered once the queue is fixed');
    const [dead] = await broker.drain(`${queue}.dlq`);
    expect(dead?.messageId).toBe('poison');
    expect(dead?.headers?.[HEADER.reason]).toBe('malformed-message');
    await waitFor(async () => worker.isReady(), 5_000, 'ready again');
    expect(await broker.depth(queue)).toBe(0);
  });

  it('is not ready while its queues cannot be declared, even with nothing to move', async () => {
    const queue = uniqueQueue('moves_undeclared');
    await broker.connection.queueDeclare({ queue: `${queue}.retry`, durable: true, arguments: { 'x-max-length': 5 } });
    const worker = start(queue, new FlakyProcessor(fixture.service), { retryDelayMs: 200 });
    await worker.ready(); // connected and consuming the main queue
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(worker.isReady()).toBe(false);
    await broker.connection.queueDelete({ queue: `${queue}.retry` });
    await waitFor(async () => worker.isReady(), 5_000, 'ready once the queues are declared');
  });

  it('is not ready while a move is refused, though its queues were declared', async () => {
    const queue = uniqueQueue('moves_rejected');
    const worker = start(queue, new FlakyProcessor(fixture.service), { retryDelayMs: 200 });
    await worker.ready();
    await waitFor(async () => worker.isReady(), 5_000, 'ready');
    // Someone replaces the dead-letter queue with one that takes no message.
    await broker.connection.queueDelete({ queue: `${queue}.dlq` });
    await broker.connection.queueDeclare({ queue: `${queue}.dlq`, durable: true, arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' } });
    await broker.publishRaw(queue, Buffer.from('not json'), { messageId: 'poison' });

    await waitFor(async () => (await counter(worker, 'mce_worker_moves_failed_total')) >= 1, 10_000, 'a refused move');
    expect(worker.isReady()).toBe(false);
    await broker.connection.queueDelete({ queue: `${queue}.dlq` });
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 10_000, 'the message dead-lettered once the queue is fixed');
    await waitFor(async () => worker.isReady(), 5_000, 'ready again');
  });

  it('keeps the unknown-session header within one frame, naming how many ids it left out', async () => {
    const queue = uniqueQueue('moves_many');
    const worker = start(queue, new FlakyProcessor(fixture.service));
    await worker.ready();
    const ghosts = Array.from({ length: 600 }, (_, i) => `ghost-session-${String(i).padStart(4, '0')}`);
    await broker.publishRaw(queue, Buffer.from(JSON.stringify({ session_ids: ghosts })), { messageId: 'many-ghosts' });

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 10_000, 'the message dead-lettered');
    const [dead] = await broker.drain(`${queue}.dlq`);
    const header = String(dead?.headers?.[HEADER.unknownSessions]);
    expect(header.length).toBeLessThanOrEqual(1000 + '… (+600 more)'.length + 1);
    const listed = header.split(',').filter((id) => id.startsWith('ghost-'));
    expect(listed).toEqual(ghosts.slice(0, listed.length));
    expect(header.endsWith(`,… (+${600 - listed.length} more)`)).toBe(true);
    expect(String(dead?.headers?.[HEADER.lastError]).length).toBeLessThanOrEqual(1000);

    // One id longer than the limit on its own: none is listed, the count says what was left out.
    await broker.publishRaw(queue, Buffer.from(JSON.stringify({ session_id: `ghost-${'x'.repeat(1500)}` })), { messageId: 'long-ghost' });
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 10_000, 'the second message dead-lettered');
    const [long] = await broker.drain(`${queue}.dlq`);
    expect([long?.messageId, long?.headers?.[HEADER.unknownSessions]]).toEqual(['long-ghost', '… (+1 more)']);
    expect(String(long?.headers?.[HEADER.lastError]).length).toBe(1000);
    expect(await counter(worker, 'mce_worker_moves_failed_total')).toBe(0);
  });

  it('gives a message replayed from the dead-letter queue a fresh set of attempts', async () => {
    const queue = uniqueQueue('moves_replay');
    const processor = new FlakyProcessor(fixture.service);
    processor.failuresLeft = 1;
    const worker = start(queue, processor, { maxAttempts: 3, retryDelayMs: 100 });
    await worker.ready();
    // As the worker dead-lettered it earlier: attempts spent, with the reason and the last error.
    await broker.publishRaw(queue, Buffer.from('{"session_id":"known-1"}'), {
      messageId: 'replayed',
      headers: { [HEADER.reason]: 'max-attempts-exceeded', [HEADER.attempts]: 3, [HEADER.lastError]: 'store unreachable', 'x-app': 'kept' },
    });

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 1, 10_000, 'the replayed message acked');
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(1); // retried, not dead-lettered again
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
    expect(processor.calls).toBe(2);
  });

  it('a replayed message that fails again spends its fresh attempts, keeping the headers that are not ours', async () => {
    const queue = uniqueQueue('moves_replay_dead');
    const processor = new FlakyProcessor(fixture.service);
    processor.failuresLeft = Number.POSITIVE_INFINITY;
    const worker = start(queue, processor, { maxAttempts: 2, retryDelayMs: 100 });
    await worker.ready();
    await broker.publishRaw(queue, Buffer.from('{"session_id":"known-1"}'), {
      messageId: 'replayed-again',
      headers: { [HEADER.reason]: 'max-attempts-exceeded', [HEADER.attempts]: 3, [HEADER.lastError]: 'store unreachable', 'x-app': 'kept' },
    });
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 10_000, 'dead-lettered again');
    const [dead] = await broker.drain(`${queue}.dlq`);
    expect([dead?.headers?.[HEADER.reason], dead?.headers?.[HEADER.attempts], dead?.headers?.['x-app']]).toEqual(['max-attempts-exceeded', 2, 'kept']);
    expect(processor.calls).toBe(2);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(1);
  });

  it('reads an attempts header written as text, and counts one it cannot read as the first attempt', async () => {
    const queue = uniqueQueue('moves_text_attempts');
    const processor = new FlakyProcessor(fixture.service);
    processor.failuresLeft = Number.POSITIVE_INFINITY;
    const worker = start(queue, processor, { maxAttempts: 2, retryDelayMs: 100 });
    await worker.ready();
    // As a copy published by hand (a management UI sends header values as text) might carry them.
    const body = Buffer.from('{"session_id":"known-1"}');
    await broker.publishRaw(queue, body, { messageId: 'text-attempts', headers: { [HEADER.attempts]: '2' } });
    await broker.publishRaw(queue, body, { messageId: 'junk-attempts', headers: { [HEADER.attempts]: 'many' } });

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 2, 10_000, 'both dead-lettered');
    const dead = new Map((await broker.drain(`${queue}.dlq`)).map((m) => [m.messageId, m.headers?.[HEADER.attempts]]));
    // '2' is this message's second attempt: dead-lettered on its first failure here. 'many' starts at 1: retried once.
    expect(Object.fromEntries(dead)).toEqual({ 'text-attempts': 2, 'junk-attempts': 2 });
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(1);
    expect(await broker.depth(queue)).toBe(0);
  });

  it('dead-letters a message with an unknown session even when another of its sessions failed transiently', async () => {
    const queue = uniqueQueue('moves_unknown_transient');
    // known-1's judge was unreachable: stored incomplete, to be retried; but a retry cannot make ghost-1 known.
    const processor = new FlakyProcessor({
      processBatch: async (items) => {
        const outcome = await fixture.service.processBatch(items);
        return {
          ...outcome,
          items: outcome.items.map((item) => (item.sessionId === 'known-1' ? { ...item, status: 'transient-failure' as const, error: 'judge unreachable' } : item)),
        };
      },
    });
    const worker = start(queue, processor, { retryDelayMs: 100 });
    await worker.ready();
    await broker.publishRaw(queue, Buffer.from('{"session_ids":["known-1","ghost-1"]}'), { messageId: 'half-known' });

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 10_000, 'dead-lettered');
    const [dead] = await broker.drain(`${queue}.dlq`);
    expect([dead?.messageId, dead?.headers?.[HEADER.reason], dead?.headers?.[HEADER.unknownSessions]]).toEqual(['half-known', 'unknown-session', 'ghost-1']);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(0);
    expect(processor.calls).toBe(1);
  });

  it('consumes a quorum queue the pipeline declared with a delivery limit, given the same queue arguments', async () => {
    const queue = uniqueQueue('moves_quorum');
    const queueArguments = { 'x-queue-type': 'quorum', 'x-delivery-limit': 5 } as const;
    await broker.connection.queueDeclare({ queue, durable: true, arguments: queueArguments });
    const worker = start(queue, new FlakyProcessor(fixture.service), { queueArguments });
    await worker.ready();
    await enqueueSessions(AMQP_URL, queue, ['known-1'], { queueArguments });
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 1, 10_000, 'the message acked');
    expect(worker.isReady()).toBe(true);
  });

  it('takes a new retry delay without any trouble with the retry queue it declared before', async () => {
    const queue = uniqueQueue('moves_delay');
    const before = start(queue, new FlakyProcessor(fixture.service), { retryDelayMs: 5000 });
    await before.ready();
    await before.close();
    const processor = new FlakyProcessor(fixture.service);
    processor.failuresLeft = 1;
    const after = start(queue, processor, { retryDelayMs: 100 });
    await after.ready();
    const started = Date.now();
    await enqueueSessions(AMQP_URL, queue, ['known-1']);

    await waitFor(async () => (await counter(after, 'mce_worker_messages_processed_total')) === 1, 10_000, 'retried and acked');
    expect(Date.now() - started).toBeLessThan(4000); // the new delay, not the 5 s of the first worker
    expect(await counter(after, 'mce_worker_moves_failed_total')).toBe(0);
    expect(after.isReady()).toBe(true);
  });
});
