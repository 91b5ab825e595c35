import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { HEADER, MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, useBroker, waitFor } from './support/amqp.js';
import { ScriptedProcessor } from './support/scripted.js';
import { FlakyProcessor, openService, openUnreachableService } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const sessions = Array.from({ length: 12 }, (_, i) => `retry-s${i}`);

describe.skipIf(!available)('worker: transient failures are retried, then dead-lettered', () => {
  let broker: Broker;
  const cleanups = useBroker((b) => (broker = b));

  async function setUp(name: string, overrides: Parameters<typeof testConfig>[1]) {
    const queue = uniqueQueue(name);
    const fixture = await openService(PG_URL, `worker_${name}_${process.pid}`, sessions);
    const processor = new FlakyProcessor(fixture.service);
    const worker = new MceWorker({ config: testConfig(queue, overrides), processor, logger: log });
    cleanups.push(() => fixture.close(), () => broker.deleteQueues(queue), () => worker.close());
    await worker.ready();
    return { queue, fixture, processor, worker };
  }

  const counter = async (worker: MceWorker, name: string) =>
    Number(new RegExp(`${name} (\\d+)`).exec(await worker.metrics.registry.metrics())?.[1] ?? 0);

  it('retries through the retry queue and succeeds when the store is back', async () => {
    const { queue, fixture, processor, worker } = await setUp('retry_ok', { maxAttempts: 3, retryDelayMs: 150, batchSize: 12, prefetch: 24, batchMaxWaitMs: 2000 });
    const sizes: number[] = [];
    const flaky = processor.processBatch.bind(processor);
    processor.processBatch = (items) => {
      sizes.push(items.length);
      return flaky(items);
    };
    // Down for four calls: the batch of 12, each of its halves (processed again to look for a message at fault), and
    // the 12 back from the retry queue, still together.
    processor.failuresLeft = 4;
    await enqueueSessions(AMQP_URL, queue, sessions);

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 12, 30_000, '12 acks');
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 12 * k, sessions: 12, min: k, max: k });
    expect(processor.failuresLeft).toBe(0);
    expect(await counter(worker, 'mce_worker_batches_failed_total')).toBe(2);
    // The 12 failed together, and both halves of them failed too: they went through the retry queue. Back, they failed
    // together once more, and their halves were stored (retried messages are searched a level deeper: here the first).
    expect(sizes).toEqual([12, 6, 6, 12, 6, 6]);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(12);
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
    expect(await broker.depth(queue)).toBe(0);
  });

  it('dead-letters every message after max_attempts with the attempt count and the last error', async () => {
    const { queue, fixture, processor, worker } = await setUp('retry_dead', { maxAttempts: 2, retryDelayMs: 100, batchSize: 12, prefetch: 24 });
    processor.failuresLeft = Number.POSITIVE_INFINITY;
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 4));

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 4, 20_000, '4 dead-lettered messages');
    const dead = await broker.drain(`${queue}.dlq`);
    for (const message of dead) {
      expect(message.headers?.[HEADER.reason]).toBe('max-attempts-exceeded');
      expect(message.headers?.[HEADER.attempts]).toBe(2);
      // The project's one error text rule (core's errorText): a plain Error shows its message only.
      expect(message.headers?.[HEADER.lastError]).toBe('store unreachable (simulated)');
      // The copy was published by the worker: it carries no death record of the retry queue it came back from.
      expect(Object.keys(message.headers ?? {}).filter((name) => /^x-(death|first-death-|last-death-)/.test(name))).toEqual([]);
    }
    expect(dead.map((message) => (message.body as { session_id: string }).session_id).sort()).toEqual(sessions.slice(0, 4).sort());
    expect((await fixture.counts()).results).toBe(0);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(4);
    expect(await counter(worker, 'mce_worker_messages_dead_lettered_total\\{reason="max-attempts-exceeded"\\}')).toBe(4);
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.depth(`${queue}.retry`)).toBe(0);
  });

  it('survives a PostgreSQL store that is unreachable (wrong port) until the configuration is fixed', async () => {
    const { queue, fixture, processor, worker } = await setUp('retry_pg', { maxAttempts: 20, retryDelayMs: 200, batchSize: 12, prefetch: 24 });
    const unreachable = await openUnreachableService(fixture.schema);
    cleanups.push(() => unreachable.close());
    processor.inner = unreachable.service;
    await enqueueSessions(AMQP_URL, queue, sessions);

    await waitFor(async () => (await counter(worker, 'mce_worker_batches_failed_total')) >= 2, 20_000, 'two failed batches');
    processor.inner = fixture.service;
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 12, 30_000, '12 acks');
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 12 * k, sessions: 12, min: k, max: k });
    // All 12 once (the first batch; a connection error: not split), then again while they met the store still down.
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBeGreaterThanOrEqual(13);
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
  });

  it('messages at fault in both halves of a batch: all are retried, then searched a level deeper: the ones beside them are stored', async () => {
    const { queue, fixture, processor: flaky, worker } = await setUp('retry_pair', { maxAttempts: 2, retryDelayMs: 100, batchSize: 4, prefetch: 8, batchMaxWaitMs: 2000 });
    // A store that refuses any batch holding one of two sessions (as PostgreSQL refuses a value it cannot hold). They
    // are in both halves of the batch: split, it looks like an outage, and the four messages go to the retry queue.
    const refused = [sessions[0], sessions[2]] as string[];
    const processor = new ScriptedProcessor(flaky.inner, (items) => {
      const bad = items.find((item) => refused.includes(item.sessionId));
      return bad ? new Error(`cannot store ${bad.sessionId}`) : undefined;
    });
    flaky.inner = processor;
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 4));

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 2, 20_000, 'the messages at fault dead-lettered');
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 2, 20_000, '2 acks');
    const dead = await broker.drain(`${queue}.dlq`);
    expect(dead.map((message) => [(message.body as { session_id: string }).session_id, message.headers?.[HEADER.reason], message.headers?.[HEADER.lastError]]).sort()).toEqual(
      refused.map((id) => [id, 'max-attempts-exceeded', `cannot store ${id}`]),
    );
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(4);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 2 * k, sessions: 2, min: k, max: k });
    // Back on their second attempt the four fail again, and so do both halves; the search goes on to the quarters
    // (a message that failed before: one level deeper), two of which are stored.
    const [s0, s1, s2, s3] = sessions as [string, string, string, string];
    expect(processor.sessionsPerCall()).toEqual([
      [s0, s1, s2, s3], [s0, s1], [s2, s3],
      [s0, s1, s2, s3], [s0, s1], [s2, s3], [s0], [s1], [s2], [s3],
    ]);
  });

  it('in a batch, a message back from the retry queue travels with the fresh ones', async () => {
    const { queue, fixture, processor, worker } = await setUp('retry_mixed', { batchSize: 3, prefetch: 6, batchMaxWaitMs: 2000 });
    const calls: string[][] = [];
    const inner = processor.inner;
    processor.inner = {
      processBatch: (items) => {
        calls.push(items.map((item) => item.sessionId));
        return inner.processBatch(items);
      },
    };
    // As it comes back from the retry queue after its first attempt failed; then two fresh messages.
    await broker.publishRaw(queue, Buffer.from(JSON.stringify({ session_id: sessions[0] })), { messageId: 'back', headers: { [HEADER.attempts]: 2 } });
    await broker.publishRaw(queue, Buffer.from(JSON.stringify({ session_id: sessions[1] })), { messageId: 'fresh-1' });
    await broker.publishRaw(queue, Buffer.from(JSON.stringify({ session_id: sessions[2] })), { messageId: 'fresh-2' });

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 3, 20_000, '3 acks');
    expect(calls).toEqual([[sessions[0], sessions[1], sessions[2]]]);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 3 * k, sessions: 3, min: k, max: k });
  });

  it('messages that gathered during a pause leave in batches of batch_size sessions, not as one', async () => {
    const { queue, processor, worker } = await setUp('retry_gathered', { maxAttempts: 1, retryDelayMs: 1500, batchSize: 2, prefetch: 8, batchMaxWaitMs: 5000 });
    const stored: string[][] = [];
    const inner = processor.inner;
    processor.inner = {
      processBatch: (items) => {
        stored.push(items.map((item) => item.sessionId));
        return inner.processBatch(items);
      },
    };
    // The first batch and both its halves fail: an outage, which pauses the worker (max_attempts 1: dead-lettered).
    processor.failuresLeft = 3;
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 2));
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 2, 10_000, 'the first batch dead-lettered');
    // Six more arrive and wait out the pause together.
    await enqueueSessions(AMQP_URL, queue, sessions.slice(2, 8));
    await waitFor(async () => (await broker.depth(queue)) === 0, 10_000, 'the six delivered');
    expect(worker.isReady()).toBe(false);
    expect(processor.calls).toBe(3);

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 6, 20_000, '6 acks');
    expect(stored).toEqual([sessions.slice(2, 4), sessions.slice(4, 6), sessions.slice(6, 8)]);
    expect(processor.calls).toBe(6);
  });

  it('a batch that succeeds ends a run of failures: the next failure pauses as briefly as the first', async () => {
    const lines: { msg?: string; pauseMs?: number }[] = [];
    const capture = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg?: string; pauseMs?: number }) });
    const queue = uniqueQueue('retry_reset');
    const fixture = await openService(PG_URL, `worker_retry_reset_${process.pid}`, sessions);
    const processor = new FlakyProcessor(fixture.service);
    const worker = new MceWorker({ config: testConfig(queue, { maxAttempts: 5, retryDelayMs: 150, batchSize: 2, batchMaxWaitMs: 100 }), processor, logger: capture });
    cleanups.push(() => fixture.close(), () => broker.deleteQueues(queue), () => worker.close());
    await worker.ready();
    // The batch of two fails, and so does each of its messages alone: an outage, which pauses the worker.
    processor.failuresLeft = 3;
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 2));
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 2, 20_000, '2 acks');
    processor.failuresLeft = 3;
    await enqueueSessions(AMQP_URL, queue, sessions.slice(2, 4));
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 4, 20_000, '4 acks');
    const pauses = lines.filter((l) => l.msg === 'batch failed: messages go to the retry queue; no new batch during the pause').map((l) => l.pauseMs);
    expect(pauses).toEqual([150, 150]);
  });

  it('doubles the pause with each failed batch in a row, up to 8 × retry_delay_ms', async () => {
    const lines: { msg?: string; pauseMs?: number }[] = [];
    const capture = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg?: string; pauseMs?: number }) });
    const queue = uniqueQueue('retry_backoff');
    const processor = new FlakyProcessor({ processBatch: () => Promise.reject(new Error('not reached')) });
    processor.failuresLeft = Number.POSITIVE_INFINITY;
    const worker = new MceWorker({ config: testConfig(queue, { maxAttempts: 20, retryDelayMs: 40, batchSize: 1, prefetch: 1 }), processor, logger: capture });
    cleanups.push(() => broker.deleteQueues(queue), () => worker.close());
    await worker.ready();
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 1));
    const pauses = () => lines.filter((l) => l.msg === 'batch failed: messages go to the retry queue; no new batch during the pause').map((l) => l.pauseMs);
    await waitFor(async () => pauses().length >= 6, 20_000, 'six failed batches');
    expect(pauses().slice(0, 6)).toEqual([40, 80, 160, 320, 320, 320]);
  });

  it('a processor that answers for fewer sessions than it was given fails the batch, saying so', async () => {
    const { queue, processor, worker } = await setUp('retry_short', { maxAttempts: 1, batchSize: 2, batchMaxWaitMs: 60_000 });
    const inner = processor.inner;
    processor.inner = {
      processBatch: async (items) => {
        const outcome = await inner.processBatch(items);
        return { ...outcome, items: outcome.items.slice(1) };
      },
    };
    // batchSize 2 and a minute's wait: the two messages leave as one batch as soon as both are there, not after the wait.
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 2));
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 2, 20_000, '2 dead-lettered messages');
    const dead = await broker.drain(`${queue}.dlq`);
    // The batch failed so, then each message alone (processed again to look for one at fault): the last error is that.
    expect(dead.map((m) => m.headers?.[HEADER.lastError])).toEqual(['processBatch returned 0 outcomes for 1 sessions', 'processBatch returned 0 outcomes for 1 sessions']);
    expect(await counter(worker, 'mce_worker_batches_failed_total')).toBe(1);
    expect(await counter(worker, 'mce_worker_batches_split_total')).toBe(1);
  });

  it('pauses new batches after a failed one (not ready meanwhile): a short outage does not dead-letter the queue', async () => {
    const { queue, processor, worker } = await setUp('retry_pause', { maxAttempts: 2, retryDelayMs: 500, batchSize: 12, prefetch: 12, batchMaxWaitMs: 50 });
    processor.failuresLeft = Number.POSITIVE_INFINITY;
    await enqueueSessions(AMQP_URL, queue, [...sessions, ...sessions, ...sessions, ...sessions]); // 48 messages
    await waitFor(async () => (await counter(worker, 'mce_worker_batches_failed_total')) >= 1, 20_000, 'a failed batch');
    const failedAt = Date.now();
    expect(worker.isReady()).toBe(false);
    // Taking batch after batch, the 48 messages would all have spent their 2 attempts by now; paused, a few did.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1200 - (Date.now() - failedAt))));
    expect(await counter(worker, 'mce_worker_batches_failed_total')).toBeLessThanOrEqual(3);
    const deadDuringOutage = await broker.depth(`${queue}.dlq`);
    expect(deadDuringOutage).toBeLessThanOrEqual(12);
    processor.failuresLeft = 0; // the store is back
    await waitFor(
      async () => (await counter(worker, 'mce_worker_messages_processed_total')) + (await broker.depth(`${queue}.dlq`)) === 48,
      30_000,
      'every message stored or dead-lettered',
    );
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBeGreaterThanOrEqual(36);
    await waitFor(async () => worker.isReady(), 10_000, 'ready again');
  });
});
