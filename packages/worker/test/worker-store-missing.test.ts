/**
 * A worker pointed at a PostgreSQL schema holding no store (a misspelt `schema=`, or nothing ingested there yet)
 * creates nothing, consumes nothing and is not ready, trying again every retry delay; once the store is there it
 * starts and stores the results. It used to create the schema, report ready and dead-letter every message (no
 * session of any message was in the new, empty store).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueSessions, queueNames } from '@mce/worker';
import { AMQP_URL, PG_URL, needService } from '../../../test-support/services.js';
import { Broker, uniqueQueue, waitFor } from './support/amqp.js';
import { openService } from './support/service.js';

const available = (await needService('rabbitmq')) && (await needService('postgres'));
const workerBin = fileURLToPath(new URL('../bin/mce-worker.js', import.meta.url));
const mceBin = fileURLToPath(new URL('../../client/bin/mce.js', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function schemaExists(schema: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    return ((await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount ?? 0) > 0;
  } finally {
    await admin.end();
  }
}

/** A worker process (`argv`: mce-worker, or mce worker) over `schema`, its output kept. */
function startWorker(argv: string[], schema: string, queue: string, healthPort: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, MCE_STORE_URL: `${PG_URL}?schema=${schema}`, MCE_AMQP_URL: AMQP_URL, MCE_WORKER_QUEUE: queue, MCE_WORKER_HEALTH_PORT: String(healthPort), MCE_WORKER_RETRY_DELAY_MS: '200', MCE_LOG_LEVEL: 'info', MCE_METRIC_CACHE: 'false' };
  delete env.MCE_CONFIG;
  const child = spawn(process.execPath, argv, { cwd: mkdtempSync(join(tmpdir(), 'mce-worker-missing-')), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exit, output: () => output };
}

describe.skipIf(!available)('a worker over a store that is not there', () => {
  const broker = new Broker();
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await broker.close();
  });

  it('mce-worker creates nothing, is not ready and leaves the message queued; once the store is there it stores the results', async () => {
    const schema = `mce_worker_mispelt_${process.pid}`;
    const queue = uniqueQueue('missing');
    cleanups.push(() => broker.deleteQueues(queue));
    const port = await freePort();
    const worker = startWorker([workerBin], schema, queue, port);
    cleanups.push(async () => worker.child.exitCode === null && worker.child.kill('SIGKILL'));
    const waiting = `no store in PostgreSQL schema ${schema} at ${PG_URL}: nothing has been ingested there yet, or schema= is misspelt: not ready, consuming nothing; trying again every 1000 ms`; // a retry delay of 200 ms, raised to the 1 s floor
    await waitFor(async () => worker.output().includes(waiting), 30_000, 'the worker saying it waits for the store');
    await enqueueSessions(AMQP_URL, queue, ['waited-for']);
    expect([(await fetch(`http://127.0.0.1:${port}/healthz`)).status, (await fetch(`http://127.0.0.1:${port}/readyz`)).status]).toEqual([200, 503]);
    expect(await schemaExists(schema)).toBe(false);
    expect(worker.output()).not.toContain('"msg":"consuming"');

    // Ingested meanwhile: the worker finds the store and computes the queued session.
    const fixture = await openService(PG_URL, schema, ['waited-for']);
    cleanups.push(() => fixture.close());
    await waitFor(async () => (await fixture.counts()).sessions === 1, 30_000, 'the queued session computed');
    expect(worker.output()).toContain('the store is there: starting');
    expect([(await fetch(`http://127.0.0.1:${port}/readyz`)).status, await broker.depth(queue), await broker.depth(queueNames(queue).dlq)]).toEqual([200, 0, 0]);
    worker.child.kill('SIGTERM');
    expect(await worker.exit).toBe(0);
  });

  it('mce worker waits the same way, and stops cleanly while it waits', async () => {
    const schema = `mce_worker_mispelt_cli_${process.pid}`;
    const queue = uniqueQueue('missingcli');
    cleanups.push(() => broker.deleteQueues(queue));
    const worker = startWorker([mceBin, 'worker'], schema, queue, await freePort());
    await waitFor(async () => worker.output().includes(`no store in PostgreSQL schema ${schema}`), 30_000, 'the worker saying it waits for the store');
    expect(worker.output()).toContain('not ready, consuming nothing');
    worker.child.kill('SIGTERM');
    expect(await worker.exit).toBe(0);
    expect(await schemaExists(schema)).toBe(false);
  });
});
