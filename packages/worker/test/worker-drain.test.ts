/**
 * What close() does with the messages around it: a message the broker delivers while the worker drains goes back to
 * the queue (it is neither processed by a worker about to leave nor acked unprocessed), while the batch in flight is
 * finished and acked; and close() does not sit out the worker's pauses.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, createLogger } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, useBroker, waitFor } from './support/amqp.js';
import { Relay } from './support/relay.js';
import { FlakyProcessor, openService, type ServiceFixture } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!available)('worker: messages delivered while it drains', () => {
  let broker: Broker;
  let fixture: ServiceFixture;
  const cleanups = useBroker((b) => (broker = b));

  beforeAll(async () => {
    fixture = await openService(PG_URL, `worker_drain_${process.pid}`, ['drain-a', 'drain-b']);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const processed = async (worker: MceWorker) => (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;

  it('requeues a message delivered after close() began; the batch in flight is acked; each is processed once', async () => {
    const queue = uniqueQueue('drain');
    // The first worker talks to the broker through a relay that can hold its frames: its cancel then reaches the broker
    // late, and the broker goes on delivering to it meanwhile, as it does to any consumer whose cancel is on the way.
    const relay = await Relay.start(AMQP_URL);
    const lines: { msg?: string; messageId?: string }[] = [];
    const capture = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg?: string; messageId?: string }) });
    const processor = new FlakyProcessor(fixture.service);
    let release = (): void => undefined;
    processor.gate = new Promise<void>((resolve) => (release = resolve));
    const first = new MceWorker({ config: testConfig(queue, { amqpUrl: relay.url, batchSize: 1, prefetch: 4 }), processor, logger: capture });
    cleanups.push(() => relay.close(), () => broker.deleteQueues(queue), () => first.close());
    await first.ready();

    await broker.publishRaw(queue, Buffer.from('{"session_id":"drain-a"}'), { messageId: 'drain-a' });
    await waitFor(async () => processor.held === 1, 10_000, 'drain-a in flight');
    relay.hold();
    const closing = first.close();
    await broker.publishRaw(queue, Buffer.from('{"session_id":"drain-b"}'), { messageId: 'drain-b' });
    // The broker hands drain-b to the first worker (its cancel still waits in the relay).
    await waitFor(async () => (await broker.depth(queue)) === 0 && relay.bytesToClientsWhileHeld > 0, 10_000, 'drain-b delivered to the first worker');
    await sleep(200);
    // The batch in flight ends: its handler slot frees, and the client hands the waiting drain-b to the worker.
    processor.gate = undefined;
    release();
    await waitFor(async () => (await fixture.counts()).sessions === 1, 10_000, 'drain-a stored');
    await waitFor(async () => lines.some((l) => l.msg === 'delivered while stopping: requeued for the next consumer'), 5_000, 'drain-b turned away');
    relay.release();
    await closing;

    expect(lines.filter((l) => l.msg === 'delivered while stopping: requeued for the next consumer').map((l) => l.messageId)).toEqual(['drain-b']);
    expect(processor.calls).toBe(1); // drain-a only
    expect(await processed(first)).toBe(1);
    // drain-a was acked (it does not come back with the closed channel); drain-b is back in the queue.
    await sleep(300);
    expect(await broker.depth(queue)).toBe(1);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: k, sessions: 1, min: k, max: k });

    // The next consumer processes drain-b, and nothing else comes.
    const second = new MceWorker({ config: testConfig(queue), processor: fixture.service, logger: log });
    cleanups.push(() => second.close());
    await waitFor(async () => (await processed(second)) === 1, 10_000, 'drain-b processed by the second worker');
    await sleep(300);
    expect(await processed(second)).toBe(1);
    expect(await fixture.counts()).toEqual({ results: 2 * k, sessions: 2, min: k, max: k });
    for (const name of [queue, `${queue}.retry`, `${queue}.dlq`]) expect(await broker.depth(name)).toBe(0);
  });

  it('does not wait out a pause: messages held back by a refused move or by a failed batch are settled at once', async () => {
    const queue = uniqueQueue('drain_pause');
    // A retry queue declared by someone else with other arguments: every move to it is refused.
    await broker.connection.queueDeclare({ queue: `${queue}.retry`, durable: true, arguments: { 'x-max-length': 5 } });
    const processor = new FlakyProcessor(fixture.service);
    processor.failuresLeft = Number.POSITIVE_INFINITY;
    const worker = new MceWorker({ config: testConfig(queue, { batchSize: 1, prefetch: 4, retryDelayMs: 30_000 }), processor, logger: log });
    cleanups.push(() => broker.deleteQueues(queue), () => worker.close());
    await worker.ready();
    const movesFailed = async () => (await worker.metrics.movesFailed.get()).values[0]?.value ?? 0;

    // drain-a fails, cannot be moved to the retry queue and waits 30 s before being requeued; the worker pauses 30 s.
    await broker.publishRaw(queue, Buffer.from('{"session_id":"drain-a"}'), { messageId: 'drain-a' });
    await waitFor(async () => (await movesFailed()) === 1, 10_000, 'a refused move');
    // drain-b arrives during the pause and waits for it to end.
    await broker.publishRaw(queue, Buffer.from('{"session_id":"drain-b"}'), { messageId: 'drain-b' });
    await waitFor(async () => (await broker.depth(queue)) === 0, 10_000, 'drain-b delivered');
    expect(processor.calls).toBe(1);

    const started = Date.now();
    await worker.close();
    // Neither pause is waited out: drain-a is requeued at once, drain-b is processed at once (and, failing, requeued
    // at once since its move is refused too).
    expect(Date.now() - started).toBeLessThan(5000);
    expect(processor.calls).toBe(2);
    expect(await movesFailed()).toBe(2);
    await waitFor(async () => (await broker.depth(queue)) === 2, 5_000, 'both messages back in the queue');
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
  }, 60_000);
});
