/**
 * A failed batch of several messages is processed again in parts to find the messages at fault: the others are
 * stored and acked on their first attempt. A store that is down is not hammered: a connection error is not split at
 * all, and a batch of fresh messages whose two halves both fail is taken for an outage (the worker pauses as before).
 * The processors are the real MCEWorkerService on PostgreSQL, wrapped to refuse some calls. (Batches of messages
 * back from the retry queue: worker-recovery.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { HEADER, enqueueSessions, runIdFor } from '@mce/worker';
import { AMQP_URL, needService } from '../../../test-support/services.js';
import { type Broker, waitFor } from './support/amqp.js';
import { gate, ScriptedProcessor } from './support/scripted.js';
import { OUTAGE_LOG, useScriptedWorkers } from './support/scripted-suite.js';
import { openUnreachableService } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const sessions = Array.from({ length: 24 }, (_, i) => `iso-s${i}`);

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe.skipIf(!available)('worker: a failed batch is split to find the messages at fault', () => {
  let broker: Broker;
  const { cleanups, store, start, counter, publish } = useScriptedWorkers(sessions, (b) => (broker = b));

  it('stores the poison message\'s batch-mates on their first attempt; the poison one is retried, then dead-lettered', async () => {
    const batch = sessions.slice(0, 6);
    const poison = batch[0] as string; // first: the first part tried fails, and the search goes on
    const fixture = await store('isolate_poison');
    const processor = new ScriptedProcessor(fixture.service, (items) =>
      items.some((item) => item.sessionId === poison) ? new Error(`cannot store ${poison}`) : undefined,
    );
    const { queue, worker } = await start('isolate_poison', processor, { batchSize: 6, prefetch: 12, batchMaxWaitMs: 2000, maxAttempts: 2, retryDelayMs: 1500 });
    await publish(queue, 'poison', batch);

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 5, 20_000, 'the five others acked');
    // Some parts of the batch were stored: not an outage, so the worker does not pause (it did, on the batch's failure).
    expect(worker.isReady()).toBe(true);
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_retried_total')) === 1, 5_000, 'the poison message retried');
    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 1, 20_000, 'the poison message dead-lettered');
    const [dead] = await broker.drain(`${queue}.dlq`);
    expect(dead?.messageId).toBe('poison-0');
    expect(JSON.parse(Buffer.from(dead?.body as Buffer).toString())).toEqual({ session_id: poison });
    expect([dead?.headers?.[HEADER.reason], dead?.headers?.[HEADER.attempts], dead?.headers?.[HEADER.lastError]]).toEqual([
      'max-attempts-exceeded',
      2,
      `cannot store ${poison}`,
    ]);
    // The five others were acked without a retry: only the poison message went through the retry queue.
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBe(5);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(1);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 5 * k, sessions: 5, min: k, max: k });
    // The calls: the batch, its halves, the failing half's halves, …, down to the poison message alone; then its
    // retry (nothing else queued: a batch of one).
    expect(processor.calls.map((items) => items.length)).toEqual([6, 3, 3, 2, 1, 1, 1, 1]);
    expect([5, 7].map((call) => processor.calls[call]?.map((item) => item.sessionId))).toEqual([[poison], [poison]]);
    // Every call computed a session under the run id of its message, whatever part it was in: reprocessing overwrites.
    for (const item of processor.calls.flat()) {
      expect(item.runId).toBe(runIdFor(`poison-${batch.indexOf(item.sessionId)}`, item.sessionId));
    }
    expect(await counter(worker, 'mce_worker_batches_failed_total')).toBe(2); // the batch, and the poison's retry
    expect(await counter(worker, 'mce_worker_batches_split_total')).toBe(1);
    expect(await broker.depth(queue)).toBe(0);
    expect(await broker.depth(`${queue}.retry`)).toBe(0);
  });

  it('finds two messages at fault in the same half on their first attempt: once a part is stored, every failing part is split', async () => {
    const batch = sessions.slice(0, 8);
    const refused = [batch[0], batch[2]] as string[]; // both in the first half, in different quarters
    const fixture = await store('isolate_two');
    const processor = new ScriptedProcessor(fixture.service, (items) => {
      const bad = items.find((item) => refused.includes(item.sessionId));
      return bad ? new Error(`cannot store ${bad.sessionId}`) : undefined;
    });
    const { queue, worker } = await start('isolate_two', processor, { batchSize: 8, prefetch: 16, batchMaxWaitMs: 2000, maxAttempts: 2, retryDelayMs: 300 });
    await publish(queue, 'two', batch);

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 2, 20_000, 'the two at fault dead-lettered');
    const ids = (...at: number[]) => at.map((i) => batch[i]);
    expect(processor.sessionsPerCall()).toEqual([
      batch,
      ids(0, 1, 2, 3), // fails
      ids(4, 5, 6, 7), // stored: the store works, both quarters of the failing half are split
      ids(0, 1),
      ids(2, 3),
      ids(0),
      ids(1),
      ids(2),
      ids(3),
      // The two come back together, fail, and so does each alone: nothing stored, taken for an outage; attempts spent.
      refused,
      ids(0),
      ids(2),
    ]);
    // The six others were stored on their first attempt; only the two went through the retry queue.
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBe(6);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(2);
    const dead = await broker.drain(`${queue}.dlq`);
    expect(dead.map((m) => [m.messageId, m.headers?.[HEADER.attempts], m.headers?.[HEADER.lastError]])).toEqual([
      ['two-0', 2, `cannot store ${batch[0]}`],
      ['two-2', 2, `cannot store ${batch[2]}`],
    ]);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 6 * k, sessions: 6, min: k, max: k });
  });

  it('takes a batch whose two halves fail for an outage: pauses as before, and spends one attempt per message', async () => {
    const fixture = await store('isolate_outage');
    const processor = new ScriptedProcessor(fixture.service, () => new Error('store unreachable (simulated)'));
    const { queue, worker, lines } = await start('isolate_outage', processor, { batchSize: 6, prefetch: 6, batchMaxWaitMs: 200, maxAttempts: 5, retryDelayMs: 400 });
    await enqueueSessions(AMQP_URL, queue, sessions);

    await waitFor(async () => (await counter(worker, 'mce_worker_batches_failed_total')) >= 1, 20_000, 'a failed batch');
    const failedAt = Date.now();
    expect(worker.isReady()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1500 - (Date.now() - failedAt))));
    const failedBatches = await counter(worker, 'mce_worker_batches_failed_total');
    const outages = lines.filter((line) => line.msg === OUTAGE_LOG);
    // As before: no new batch during the pause, which doubles with each failed batch (400, then 800 ms: at most 3).
    expect(failedBatches).toBeLessThanOrEqual(3);
    expect(outages.map((line) => line.pauseMs)).toEqual([400, 800, 1600].slice(0, outages.length));
    // Each failed batch (of fresh messages: the retried ones queue behind) cost at most two more calls (its halves),
    // and the messages it held one attempt each, no more.
    expect(processor.calls.length).toBeLessThanOrEqual(3 * failedBatches);
    expect(outages).toHaveLength(failedBatches);
    const spent = outages.reduce((sum, line) => sum + (line.messages ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(6 * failedBatches);
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_retried_total')) === spent, 5_000, 'the retries published');
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);

    processor.refuse = () => undefined; // the store is back
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 24, 30_000, 'every message stored');
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 24 * k, sessions: 24, min: k, max: k });
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
    await waitFor(async () => worker.isReady(), 10_000, 'ready again');
  });

  it('does not split a batch that failed on a connection error: one call per failed batch', async () => {
    const fixture = await store('isolate_refused');
    const unreachable = await openUnreachableService(fixture.schema);
    cleanups.push(() => unreachable.close());
    const processor = new ScriptedProcessor(unreachable.service, () => undefined);
    const { queue, worker, lines } = await start('isolate_refused', processor, { batchSize: 6, prefetch: 12, batchMaxWaitMs: 2000, maxAttempts: 5, retryDelayMs: 200 });
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 6));

    await waitFor(async () => (await counter(worker, 'mce_worker_batches_failed_total')) >= 1, 20_000, 'a failed batch');
    await new Promise((resolve) => setTimeout(resolve, 600)); // the retried messages come back, together, and fail too
    await worker.close(); // no call in progress while counting
    expect(await counter(worker, 'mce_worker_batches_failed_total')).toBeGreaterThanOrEqual(2);
    expect(processor.calls.length).toBe(await counter(worker, 'mce_worker_batches_failed_total'));
    expect(processor.calls[0]?.length).toBe(6);
    expect(await counter(worker, 'mce_worker_batches_split_total')).toBe(0);
    expect(lines.find((line) => line.msg === OUTAGE_LOG)).toMatchObject({ messages: 6, pauseMs: 200 });
  });

  it('stops splitting when the store goes away meanwhile: what was stored is acked, the rest retried after a pause', async () => {
    const batch = sessions.slice(0, 4);
    const fixture = await store('isolate_gone');
    // The batch fails on a message the store refuses; its first half is stored; then the store is gone for one call.
    const processor = new ScriptedProcessor(fixture.service, (_items, call) =>
      call === 1 ? new Error('value out of range') : call === 3 ? connectionRefused() : undefined,
    );
    const { queue, worker, lines } = await start('isolate_gone', processor, { batchSize: 4, prefetch: 8, batchMaxWaitMs: 2000, maxAttempts: 3, retryDelayMs: 1000 });
    await publish(queue, 'gone', batch);
    await waitFor(async () => lines.some((line) => line.msg === OUTAGE_LOG), 20_000, 'the split given up');
    expect(worker.isReady()).toBe(false); // paused again

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 4, 20_000, 'every message stored');
    // The batch, its halves (the second refused for the connection: no further split), then that half's two
    // messages back from the retry queue, in one batch.
    expect(processor.sessionsPerCall()).toEqual([batch, batch.slice(0, 2), batch.slice(2), batch.slice(2)]);
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(2);
    // The first stored half ended the pause of the first failure; the connection error began a new one (the first of
    // a new run: not doubled).
    expect(lines.filter((line) => line.msg === OUTAGE_LOG)).toMatchObject([{ messages: 2, storedMessages: 2, pauseMs: 1000 }]);
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 4 * k, sessions: 4, min: k, max: k });
  });

  it('starts the batches that waited out the split as soon as a part is stored', async () => {
    const fixture = await store('isolate_resume');
    const batch = sessions.slice(0, 2);
    const later = sessions.slice(2, 4);
    const held = gate();
    // The batch fails on its first message; the part holding the second one is held until the test lets it go.
    const processor = new ScriptedProcessor(fixture.service, async (items, call) => {
      if (items.some((item) => item.sessionId === batch[0])) return new Error(`cannot store ${batch[0]}`);
      if (call === 3) await held.promise;
      return undefined;
    });
    const { queue, worker } = await start('isolate_resume', processor, { batchSize: 2, prefetch: 8, batchMaxWaitMs: 2000, maxAttempts: 2, retryDelayMs: 20_000 });
    await publish(queue, 'resume', batch);
    await waitFor(async () => processor.calls.length === 3, 10_000, 'the split under way');
    // Two more messages arrive during the split: a full batch, held back by the pause the failure began.
    await publish(queue, 'resume-later', later);
    await waitFor(async () => (await broker.depth(queue)) === 0, 10_000, 'the two delivered');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processor.calls).toHaveLength(3);
    const released = Date.now();
    held.resolve();
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 3, 10_000, 'the later batch stored');
    expect(Date.now() - released).toBeLessThan(5000); // not after the 20 s pause
    expect(processor.calls[3]?.map((item) => item.sessionId)).toEqual(later);
  });

  it('a stored part ends only the pause its own batch began, not one a later failure began', async () => {
    const fixture = await store('isolate_overlap');
    const first = sessions.slice(0, 2); // in flight when `second` fails; then down for the connection
    const second = sessions.slice(2, 4); // fails on its first message, then is split
    const gates = { first: gate(), split: gate() };
    const processor = new ScriptedProcessor(fixture.service, async (items) => {
      const ids = items.map((item) => item.sessionId);
      if (ids.includes(first[0] as string)) {
        await gates.first.promise;
        return connectionRefused();
      }
      if (ids.includes(second[0] as string)) return new Error(`cannot store ${second[0]}`);
      if (ids.includes(second[1] as string)) await gates.split.promise;
      return undefined;
    });
    const { queue, worker, lines } = await start('isolate_overlap', processor, { batchSize: 2, prefetch: 8, batchMaxWaitMs: 2000, maxAttempts: 3, retryDelayMs: 5000 });
    await publish(queue, 'overlap-first', first);
    await waitFor(async () => processor.calls.length === 1, 10_000, 'the first batch in flight');
    await publish(queue, 'overlap-second', second);
    // The second batch failed and is being split: its second message's part is held.
    await waitFor(async () => processor.calls.length === 4, 10_000, 'the split under way');
    // The first batch fails on the connection: a pause of its own (the second failure in a row: 10 s).
    gates.first.resolve();
    await waitFor(async () => lines.some((line) => line.msg === OUTAGE_LOG), 10_000, 'the first batch failed');
    gates.split.resolve();
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 1, 10_000, 'the part stored');
    expect(lines.find((line) => line.msg === OUTAGE_LOG)?.pauseMs).toBe(10_000);
    expect(worker.isReady()).toBe(false); // the first batch's pause holds
  });
});
