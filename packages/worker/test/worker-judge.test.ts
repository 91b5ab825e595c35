/**
 * A judge that cannot be reached is a transient failure: the message is retried (its deterministic results are
 * stored meanwhile and overwritten by the retry), and dead-lettered with the judge's error once the attempts are
 * spent. The judge is the real client against a scripted OpenAI-compatible server on loopback.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MCEClient, MCEWorkerService, defaultMceConfig } from '@mce/client';
import { HEADER, MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../test-support/scripted-llm-server.mjs';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { openService } from './support/service.js';
import { pointJudgeAt, resetJudgeEnv } from '../../../test-support/judge-env.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const silent = { warn: () => undefined };
const sessions = Array.from({ length: 4 }, (_, i) => `judge-s${i}`);
const OVERLOADED = { status: 503, error: { message: 'overloaded' } };
const SCORE_4 = { text: 'Relevant.\nScore: 4' };

describe.skipIf(!available)('worker: an unreachable judge', () => {
  let broker: Broker;
  let server: ScriptedLLMServer;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(() => {
    broker = new Broker();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    resetJudgeEnv();
  });
  afterAll(async () => {
    await broker?.close();
  });

  async function setUp(name: string, maxAttempts: number) {
    server = await startScriptedLLMServer({ fallback: OVERLOADED });
    pointJudgeAt(server.url, {
      MCE_JUDGE_MAX_RETRIES: '0', // the worker's retry is under test, not the judge's own
      MCE_JUDGE_LOGPROBS: 'false',
    });
    const queue = uniqueQueue(name);
    const fixture = await openService(PG_URL, `worker_${name}_${process.pid}`, sessions);
    const config = { ...defaultMceConfig(), metrics: { Session: ['Duration'], LLMCall: ['AnswerRelevancy'] } };
    const client = await MCEClient.open({ config, store: fixture.client.store, cache: false, env: {}, logger: silent });
    const worker = new MceWorker({
      config: testConfig(queue, { maxAttempts, retryDelayMs: 150, batchSize: 4, prefetch: 8, batchMaxWaitMs: 100 }),
      processor: new MCEWorkerService(client),
      logger: log,
    });
    cleanups.push(() => server.close(), () => fixture.close(), () => client.close(), () => broker.deleteQueues(queue), () => worker.close());
    await worker.ready();
    return { queue, fixture, worker };
  }

  const counter = async (worker: MceWorker, name: string) =>
    Number(new RegExp(`${name} (\\d+)`).exec(await worker.metrics.registry.metrics())?.[1] ?? 0);

  it('retries the messages, and completes them once the judge answers again', async () => {
    const { queue, fixture, worker } = await setUp('judge_back', 10);
    await enqueueSessions(AMQP_URL, queue, sessions);

    await waitFor(async () => (await counter(worker, 'mce_worker_messages_retried_total')) >= 4, 20_000, 'four retried messages');
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBe(0);
    // The deterministic result of each session is already stored; the judged ones failed and are not.
    expect(await fixture.counts()).toEqual({ results: 4, sessions: 4, min: 1, max: 1 });

    server.setScript([], SCORE_4);
    await waitFor(async () => (await counter(worker, 'mce_worker_messages_processed_total')) === 4, 20_000, 'four acks');
    // Duration + AnswerRelevancy of its three LLM calls, once each: the retry overwrote, it did not add.
    expect(await fixture.counts()).toEqual({ results: 16, sessions: 4, min: 4, max: 4 });
    expect(await broker.depth(`${queue}.dlq`)).toBe(0);
  });

  it('dead-letters the messages with the judge error once the attempts are spent', async () => {
    const { queue, fixture, worker } = await setUp('judge_gone', 2);
    await enqueueSessions(AMQP_URL, queue, sessions.slice(0, 2));

    await waitFor(async () => (await broker.depth(`${queue}.dlq`)) === 2, 20_000, 'two dead-lettered messages');
    for (const message of await broker.drain(`${queue}.dlq`)) {
      expect(message.headers?.[HEADER.reason]).toBe('max-attempts-exceeded');
      expect(message.headers?.[HEADER.attempts]).toBe(2);
      expect(String(message.headers?.[HEADER.lastError])).toMatch(
        /^AnswerRelevancy \(LLMCall judge-s\d-l\d\): JudgeRequestError: judge request to .* failed after 1 call\(s\): 503 overloaded$/,
      );
    }
    expect(await counter(worker, 'mce_worker_messages_retried_total')).toBe(2);
    expect(await counter(worker, 'mce_worker_messages_processed_total')).toBe(0);
    expect((await fixture.counts()).results).toBe(2); // the deterministic results stay
  });
});
