import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MceWorker, createLogger, enqueueSessions } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';
import { createDatabase, openService } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const bin = fileURLToPath(new URL('../bin/mce-worker.js', import.meta.url));
const mceBin = fileURLToPath(new URL('../../client/bin/mce.js', import.meta.url));
const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

interface Child {
  process: ChildProcess;
  output: string[];
  exit: Promise<{ code: number | null; atMs: number }>;
}

/** The built `mce-worker` executable, in an empty directory (no mce_config.yaml: defaults + environment). */
function startWorkerProcess(cwd: string, env: Record<string, string>, argv: string[] = [bin]): Child {
  const base = { ...process.env };
  delete base.MCE_CONFIG;
  const child = spawn(process.execPath, argv, { cwd, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean)));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exit = new Promise<{ code: number | null; atMs: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, atMs: Date.now() })),
  );
  return { process: child, output, exit };
}

describe.skipIf(!available)('mce-worker process: SIGTERM in mid-batch', () => {
  let broker: Broker;
  let cwd: string;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(() => {
    if (!existsSync(built)) throw new Error('packages/worker/dist is missing: build first (npm run build)');
    broker = new Broker();
    cwd = mkdtempSync(join(tmpdir(), 'mce-worker-test-'));
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await broker?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  async function scenario(name: string, count: number) {
    const queue = uniqueQueue(name);
    const sessions = Array.from({ length: count }, (_, i) => `${name}-s${i}`);
    const database = await createDatabase(PG_URL, `mce_worker_${name}_${process.pid}`);
    const fixture = await openService(database.url, 'public', sessions);
    cleanups.push(() => database.drop(), () => fixture.close(), () => broker.deleteQueues(queue));
    await enqueueSessions(AMQP_URL, queue, sessions);
    const env = (overrides: Record<string, string>) => ({
      MCE_STORE_URL: database.url,
      MCE_AMQP_URL: AMQP_URL,
      MCE_WORKER_QUEUE: queue,
      MCE_WORKER_HEALTH_PORT: '0',
      MCE_LOG_LEVEL: 'info',
      ...overrides,
    });
    /** Finishes the queue with an in-process worker. */
    const finish = async () => {
      const worker = new MceWorker({ config: testConfig(queue, { batchSize: 50, prefetch: 100 }), processor: fixture.service, logger: log });
      await waitFor(async () => (await broker.depth(queue)) === 0 && (await fixture.counts()).sessions === count, 60_000, `all ${count} sessions stored`);
      await worker.close();
    };
    return { queue, fixture, env, finish, database };
  }

  it('finishes and acks the in-flight batch, leaves the rest queued, exits 0: nothing lost, nothing twice', async () => {
    const { queue, fixture, env, finish } = await scenario('sigterm', 200);
    const child = startWorkerProcess(cwd, env({ MCE_WORKER_BATCH_SIZE: '20', MCE_WORKER_PREFETCH: '40', MCE_WORKER_BATCH_MAX_WAIT_MS: '20' }));
    await waitFor(async () => (await fixture.counts()).sessions >= 20, 30_000, 'a first committed batch');
    const storedAtSignal = (await fixture.counts()).sessions;
    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    const { code, atMs } = await child.exit;

    expect(code).toBe(0);
    expect(atMs - signalledAt).toBeLessThan(10_000);
    expect(child.output.some((line) => line.includes('"msg":"shutting down"') && line.includes('"reason":"SIGTERM"'))).toBe(true);
    expect(child.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    // The signal came in mid-batch: the worker had a batch in flight or messages waiting for one.
    const stopping = JSON.parse(child.output.find((line) => line.includes('"msg":"stopping: finishing in-flight batches"')) ?? '{}') as {
      inFlightBatches?: number;
      pendingMessages?: number;
    };
    expect((stopping.inFlightBatches ?? 0) + (stopping.pendingMessages ?? 0)).toBeGreaterThan(0);
    // Every message it processed was acked: messages arriving during the shutdown were requeued, not processed.
    expect(child.output.filter((line) => line.includes('failed to ack'))).toEqual([]);
    const storedAtExit = (await fixture.counts()).sessions;
    // The batches in flight at the signal were finished (and acked) after it.
    expect(storedAtExit).toBeGreaterThan(storedAtSignal);
    expect(storedAtExit).toBeLessThan(200);
    // Every message not stored is back in the queue (once the broker has handled the closed connection): none lost,
    // none left unacked.
    await waitFor(async () => (await broker.depth(queue)) === 200 - storedAtExit, 5000, 'the unprocessed messages back').catch(() => undefined);
    expect(await broker.depth(queue)).toBe(200 - storedAtExit);

    await finish();
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 200 * k, sessions: 200, min: k, max: k });
  });

  it('gives up at the shutdown deadline (exit 1); the unfinished batch is redelivered and stored once', async () => {
    const { fixture, env, finish } = await scenario('deadline', 60);
    const child = startWorkerProcess(cwd, env({ MCE_WORKER_BATCH_SIZE: '60', MCE_WORKER_SHUTDOWN_DEADLINE_MS: '1' }));
    await waitFor(async () => child.output.some((line) => line.includes('"msg":"consuming"')), 30_000, 'the worker consuming');
    await new Promise((resolve) => setTimeout(resolve, 100)); // the 60 sessions are one batch, being computed
    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    const { code, atMs } = await child.exit;
    expect(code).toBe(1);
    expect(atMs - signalledAt).toBeLessThan(5000);
    expect(child.output.some((line) => line.includes('shutdown deadline passed'))).toBe(true);

    await finish();
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 60 * k, sessions: 60, min: k, max: k });
  });

  it('mce worker also leaves at the deadline, not once the batch it gave up on has been written', async () => {
    const { fixture, env, finish, database } = await scenario('clideadline', 60);
    // Every stored result takes 2 ms: the 60-session batch takes seconds to write, far past the deadline.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`CREATE FUNCTION public.slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END $$`);
    await admin.query(`CREATE TRIGGER slow BEFORE INSERT ON public.metric_results FOR EACH ROW EXECUTE FUNCTION public.slow_insert()`);
    const child = startWorkerProcess(cwd, env({ MCE_WORKER_BATCH_SIZE: '60', MCE_WORKER_SHUTDOWN_DEADLINE_MS: '1' }), [mceBin, 'worker']);
    await waitFor(async () => child.output.some((line) => line.includes('"msg":"consuming"')), 30_000, 'the worker consuming');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the batch is being written, a row every 2 ms
    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    const { code, atMs } = await child.exit;
    expect(code).toBe(1);
    expect(atMs - signalledAt).toBeLessThan(3000);
    expect(child.output.join('')).toContain('mce: worker stopped: ');
    // It left on purpose, having said why: not the notice of a command whose event loop emptied.
    expect(child.output.join('')).not.toContain('never settled');

    await admin.query('DROP TRIGGER slow ON public.metric_results');
    await admin.end();
    await finish();
    const k = fixture.resultsPerSession;
    expect(await fixture.counts()).toEqual({ results: 60 * k, sessions: 60, min: k, max: k });
  });
});
