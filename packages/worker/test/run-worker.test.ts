import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MceWorker, createLogger, enqueueSessions, runWorker, type BatchItem } from '@mce/worker';
import { AMQP_URL, needService } from '../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, waitFor } from './support/amqp.js';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('worker without a broker', () => {
  it('is alive but not ready, and closes at once', async () => {
    const worker = new MceWorker({
      config: testConfig('unreachable', { amqpUrl: 'amqp://guest:guest@127.0.0.1:1' }),
      processor: { processBatch: async () => ({ items: [] }) },
      logger: log,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(worker.isReady()).toBe(false);
    const started = Date.now();
    await worker.close();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

const available = await needService('rabbitmq');

describe.skipIf(!available)('runWorker', () => {
  it('stops with exit code 2 naming the variables when the broker refuses the credentials (it retried forever)', async () => {
    const url = new URL(AMQP_URL);
    url.password = 'not-the-password';
    const result = await runWorker({
      processor: { processBatch: async () => ({ items: [] }) },
      config: testConfig(uniqueQueue('refused'), { amqpUrl: url.toString(), healthPort: 0 }),
      logger: log,
      signals: [],
    });
    expect(result).toEqual({ exitCode: 2, reason: `the broker at amqp://${url.username}:***@${url.host} refused the user name or password (MCE_AMQP_URL / RABBITMQ_URL / amqp_url)` });
  });

  it('serves health, readiness and metrics, processes, and stops cleanly when aborted', async () => {
    const queue = uniqueQueue('run');
    const broker = new Broker();
    const port = await freePort();
    const seen: BatchItem[] = [];
    const abort = new AbortController();
    let worker: MceWorker | undefined;
    const running = runWorker({
      processor: {
        processBatch: async (items) => {
          seen.push(...items);
          return {
            items: items.map((item) => ({ sessionId: item.sessionId, status: 'ok', results: 3, failedMetrics: 1, evaluationTokens: 120, evaluationCost: 0.25 })),
          };
        },
      },
      config: testConfig(queue, { healthPort: port }),
      logger: log,
      signals: [],
      signal: abort.signal,
      onStarted: (info) => {
        worker = info.worker;
        expect(info.healthPort).toBe(port);
      },
    });
    try {
      await waitFor(async () => worker?.isReady() === true, 10_000, 'the worker consuming');
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      await enqueueSessions(AMQP_URL, queue, ['r1', 'r2', 'r3']);
      await waitFor(async () => seen.length === 3, 10_000, '3 processed sessions');
      expect(seen.map((item) => item.sessionId).sort()).toEqual(['r1', 'r2', 'r3']);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('mce_worker_sessions_processed_total 3');
      // Judge usage the processor reported: 3 sessions × 120 tokens, 3 × $0.25.
      expect(metrics).toContain('mce_worker_judge_tokens_total 360');
      expect(metrics).toContain('mce_worker_judge_cost_usd_total 0.75');
      expect(metrics).toContain('process_cpu_user_seconds_total');
    } finally {
      abort.abort();
      expect(await running).toEqual({ exitCode: 0, reason: 'abort' });
      await broker.deleteQueues(queue);
      await broker.close();
    }
    // The HTTP server is gone with the worker.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
