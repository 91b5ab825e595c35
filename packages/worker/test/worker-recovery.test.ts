/**
 * After an outage the messages that were in flight come back from the retry queue, and travel in batches again: the
 * backlog drains at the batch rate, not one call per message. A message at fault among them is still found by the
 * split (one level deeper for messages that failed before) and dead-lettered after max_attempts, alone. The
 * processors are the real MCEWorkerService on PostgreSQL, scripted to fail some calls.
 */
import { describe, expect, it } from 'vitest';
import { HEADER } from '@mce/worker';
import { needService } from '../../../test-support/services.js';
import { type Broker, waitFor } from './support/amqp.js';
import { gate, ScriptedProcessor } from './support/scripted.js';
import { useScriptedWorkers } from './support/scripted-suite.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const sessions = Array.from({ length: 10 }, (_, i) => `rec-s${i}`);

describe.skipIf(!available)('worker: messages back from the retry queue travel in batches', () => {
  let broker: Broker;
  const { store, start, counter, publish } = useScriptedWorkers(sessions, (b) => (broker = b));

  it('after an outage of 10 messages, stores them in ⌈10 / 4⌉ = 3 calls once the store is back, not 10', async () => {
    const fixture = await store('recovery_outage');
    const held = gate();
    let down = true;
    // The store is down; the first calls wait until all three batches are in flight, so all ten fail at once.
    const processor = new ScriptedProcessor(fixture.service, async () => {
      await held.promise;
      return down ? new Error('store unreachable (simulated)') : undefined;
    });
    const { queue, worker, outagePauses } = await start('recovery_outage', processor, {
      batchSize: 4,
      prefetch: 12,
      batchMaxWaitMs: 500,
      maxAttempts: 5,
      retryDelayMs: 300,
    });
    await publish(queue, 'outage', sessions);
    await waitFor(async () => processor.calls.length === 3, 10_000, 'the three batches in flight');
    held.resolve();
    // Each batch and both its halves fail: three outages in a row, every message to the retry queue once.
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_retried_total')) === 10, 10_000, 'all ten retried');
    // The three batches, then their halves (the three searches run at once: their calls interleave).
    const sizes = processor.calls.map((items) => items.length);
    expect([sizes.slice(0, 3), sizes.slice(3).sort()]).toEqual([[4, 4, 2], [1, 1, 2, 2, 2, 2]]);
    expect(outagePauses().map(Number).sort((x, y) => x - y)).toEqual([300, 600, 1200]);
    down = false;

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 10, 20_000, 'all ten stored');
    // Back on their second attempt during the 1.2 s pause, they left in batches of batch_size: three calls.
    const recovery = processor.sessionsPerCall().slice(9);
    expect(recovery.map((ids) => ids.length)).toEqual([4, 4, 2]);
    expect(recovery.flat().sort()).toEqual([...sessions].sort());
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 10 * k, sessions: 10, min: k, max: k });
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(10);
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
  });

  it('a poison message among the retried ones is found, retried alone and dead-lettered after max_attempts; its neighbours are stored', async () => {
    const fixture = await store('recovery_poison');
    const batch = sessions.slice(0, 4) as [string, string, string, string];
    const poison = batch[1];
    // Down for the batch and its halves; then up, but the store refuses any batch holding the poison session.
    const processor = new ScriptedProcessor(fixture.service, (items, call) => {
      if (call <= 3) return new Error('store unreachable (simulated)');
      return items.some((item) => item.sessionId === poison) ? new Error(`cannot store ${poison}`) : undefined;
    });
    const { queue, worker, outagePauses } = await start('recovery_poison', processor, {
      batchSize: 4,
      prefetch: 8,
      batchMaxWaitMs: 2000,
      maxAttempts: 3,
      retryDelayMs: 300,
    });
    await publish(queue, 'poison', batch);

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 20_000, 'the poison message dead-lettered');
    const [s0, s1, s2, s3] = batch;
    expect(processor.sessionsPerCall()).toEqual([
      // Attempt 1, the outage: the batch and its halves; all four to the retry queue.
      [s0, s1, s2, s3], [s0, s1], [s2, s3],
      // Attempt 2, together: the batch fails on the poison; a half is stored, so the search goes down to it.
      [s0, s1, s2, s3], [s0, s1], [s2, s3], [s0], [s1],
      // Attempt 3, the poison alone (nothing else queued): it fails, its attempts are spent.
      [s1],
    ]);
    const [dead] = await broker.drain(`${queue}.dlq`);
    expect([dead?.messageId, dead?.headers?.[HEADER.reason], dead?.headers?.[HEADER.attempts], dead?.headers?.[HEADER.lastError]]).toEqual([
      'poison-1',
      'max-attempts-exceeded',
      3,
      `cannot store ${poison}`,
    ]);
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBe(3);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(5); // four after the outage, then the poison
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 3 * k, sessions: 3, min: k, max: k });
    // The outage paused the worker; the poison alone on its last attempt is a failed batch too, after a stored one.
    expect(outagePauses()).toEqual([300, 300]);
  });

  it('retried messages that all fail are searched deeper on each attempt, then dead-lettered together: 3 + 7 + 7 calls', async () => {
    const fixture = await store('recovery_all');
    const batch = sessions.slice(0, 4) as [string, string, string, string];
    // Every message is refused (or the store stays down: the worker cannot tell them apart).
    const processor = new ScriptedProcessor(fixture.service, (items) => new Error(`cannot store ${items[0]?.sessionId}`));
    const { queue, worker, outagePauses } = await start('recovery_all', processor, {
      batchSize: 4,
      prefetch: 8,
      batchMaxWaitMs: 2000,
      maxAttempts: 3,
      retryDelayMs: 200,
    });
    await publish(queue, 'all', batch);

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 4, 20_000, 'all four dead-lettered');
    const [s0, s1, s2, s3] = batch;
    const wholeTree = [[s0, s1, s2, s3], [s0, s1], [s2, s3], [s0], [s1], [s2], [s3]];
    expect(processor.sessionsPerCall()).toEqual([
      // Attempt 1: halves only, then taken for an outage.
      [s0, s1, s2, s3], [s0, s1], [s2, s3],
      // Attempt 2: quarters too (here single messages): nothing stored, an outage again.
      ...wholeTree,
      // Attempt 3: three levels allowed, but the batch of four has two: the same tree, its last attempt.
      ...wholeTree,
    ]);
    // Each attempt was an outage: the pause doubled, and no message was stored.
    expect(outagePauses()).toEqual([200, 400, 800]);
    const dead = await broker.drain(`${queue}.dlq`);
    expect(dead.map((m) => [m.messageId, m.headers?.[HEADER.attempts], m.headers?.[HEADER.lastError]])).toEqual(
      batch.map((id, i) => [`all-${i}`, 3, `cannot store ${id}`]),
    );
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(8);
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBe(0);
    expect((await fixture.counts()).results).toBe(0);
  });
});
