import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { PgResultsProcessor } from './support/pg-processor.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const fixture = fileURLToPath(new URL('./fixtures/pg-worker.mjs', import.meta.url));
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));

interface Child {
  process: ChildProcess;
  output: string[];
  exit: Promise<{ code: number | null; atMs: number }>;
}

function startWorkerProcess(env: Record<string, string>): Child {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean)));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exit = new Promise<{ code: number | null; atMs: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, atMs: Date.now() })),
  );
  return { process: child, output, exit };
}

describe.skipIf(!available)('worker process: SIGTERM in mid-batch', () => {
  let broker: Broker;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(() => {
    if (!existsSync(built)) throw new Error('packages/worker/dist is missing: build first (npm run build)');
    broker = new Broker();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await broker?.close();
  });

  async function scenario(name: string, count: number) {
    const queue = uniqueQueue(name);
    const sessions = Array.from({ length: count }, (_, i) => `${name}-s${i}`);
    const processor = await PgResultsProcessor.create(PG_URL, `worker_${name}_${process.pid}`, sessions);
    cleanups.push(() => processor.close(), () => broker.deleteQueues(queue));
    await enqueueSessions(AMQP_URL, queue, sessions);
    const env = (overrides: Record<string, string>) => ({
      MCE_AMQP_URL: AMQP_URL,
      MCE_WORKER_QUEUE: queue,
      MCE_WORKER_HEALTH_PORT: '0',
      FIXTURE_PG_URL: PG_URL,
      FIXTURE_SCHEMA: processor.schema,
      ...overrides,
    });
    /** Finishes the queue with an in-process worker. */
    const finish = async () => {
      const worker = new MceWorker({ config: testConfig(queue, { batchSize: 50, prefetch: 100 }), processor, logger: log });
      await waitFor(async () => (await processor.counts()).rows === count, 20_000, `all ${count} sessions stored`);
      await worker.close();
    };
    return { queue, processor, env, finish };
  }

  it('finishes and acks the in-flight batch, leaves the rest queued, exits 0: nothing lost, nothing twice', async () => {
    const { queue, processor, env, finish } = await scenario('sigterm', 200);
    const child = startWorkerProcess(
      env({ MCE_WORKER_BATCH_SIZE: '20', MCE_WORKER_PREFETCH: '40', MCE_WORKER_BATCH_MAX_WAIT_MS: '20', FIXTURE_DELAY_MS: '400' }),
    );
    await waitFor(async () => (await processor.counts()).rows >= 20, 15_000, 'a first committed batch');
    const rowsAtSignal = (await processor.counts()).rows;
    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    const { code, atMs } = await child.exit;

    expect(code).toBe(0);
    expect(atMs - signalledAt).toBeLessThan(5000);
    expect(child.output.some((line) => line.includes('"msg":"shutting down"') && line.includes('"reason":"SIGTERM"'))).toBe(true);
    expect(child.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    const rowsAtExit = (await processor.counts()).rows;
    // The batches in flight at the signal were finished (and acked) after it.
    expect(rowsAtExit).toBeGreaterThan(rowsAtSignal);
    // Every message not stored is back in the queue: none lost, none left unacked.
    expect(await broker.depth(queue)).toBe(200 - rowsAtExit);

    await finish();
    // Each session written exactly once: what the stopped worker acked was not redelivered.
    expect(await processor.counts()).toEqual({ rows: 200, sessions: 200, writes: 200 });
  });

  it('gives up at the shutdown deadline (exit 1) and the broker redelivers the unfinished batch', async () => {
    const { processor, env, finish } = await scenario('deadline', 30);
    const child = startWorkerProcess(
      env({ MCE_WORKER_BATCH_SIZE: '30', MCE_WORKER_SHUTDOWN_DEADLINE_MS: '300', FIXTURE_DELAY_MS: '3000' }),
    );
    await waitFor(async () => child.output.some((line) => line.includes('"msg":"consuming"')), 15_000, 'the worker consuming');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the 30 sessions are in one batch, in its 3 s wait
    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    const { code, atMs } = await child.exit;
    expect(code).toBe(1);
    expect(atMs - signalledAt).toBeLessThan(2000);
    expect(child.output.some((line) => line.includes('shutdown deadline passed'))).toBe(true);
    expect((await processor.counts()).rows).toBe(0);

    await finish();
    expect(await processor.counts()).toEqual({ rows: 30, sessions: 30, writes: 30 });
  });
});
