// Worker benchmark: 10,000 queued sessions of about 50 spans, computed with the deterministic catalog and written to
// the PostgreSQL store by one worker process, then by two; prints sessions/s, the scaling ratio and the p50/p99
// batch latency. Needs the built packages (npm run build), PostgreSQL and RabbitMQ.
//
//   node bench/worker/run.mjs [--sessions 10000] [--batch-size 50] [--workers 1,2] [--processor service|noop]
//                             [--fresh]   (rewrite the sessions even when the schema already holds them)
//                             [--session-only]   (Session-level metrics only: engine.recursive = false)
//                             [--drop]    (remove the benchmark schema afterwards; kept by default for the next run)
//                             [--cpu-prof DIR]   (each worker process writes a V8 CPU profile into DIR)
// Environment: MCE_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), MCE_BENCH_AMQP_URL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Connection } from 'rabbitmq-client';
import { enqueueSessions, queueNames } from '@mce/worker';
import { clearResults, countResults, prepareSessions } from './processor.mjs';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '10000' },
    'batch-size': { type: 'string', default: '50' },
    workers: { type: 'string', default: '1,2' },
    processor: { type: 'string', default: 'service' },
    fresh: { type: 'boolean', default: false },
    'session-only': { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const SESSIONS = Number(args.sessions);
const BATCH_SIZE = Number(args['batch-size']);
const WORKER_COUNTS = args.workers.split(',').map(Number);
const PG_URL = process.env.MCE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const AMQP_URL = process.env.MCE_BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const SCHEMA = 'mce_bench_worker';
const workerScript = fileURLToPath(new URL('./worker-process.mjs', import.meta.url));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function startWorker(queue) {
  // The node options of the shipped `mce-worker` executable (bin/mce-worker.js): a larger young generation.
  const nodeArgs = ['--max-semi-space-size=64'];
  if (args['cpu-prof']) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`);
  const child = spawn(process.execPath, [...nodeArgs, workerScript], {
    env: {
      ...process.env,
      BENCH_PROCESSOR: args.processor,
      BENCH_PG_URL: PG_URL,
      BENCH_SCHEMA: SCHEMA,
      BENCH_RECURSIVE: args['session-only'] ? 'false' : 'true',
      MCE_AMQP_URL: AMQP_URL,
      MCE_WORKER_QUEUE: queue,
      MCE_WORKER_BATCH_SIZE: String(BATCH_SIZE),
      MCE_WORKER_PREFETCH: String(2 * BATCH_SIZE),
      MCE_WORKER_HEALTH_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  const events = [];
  const waiters = [];
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString();
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      try {
        const event = JSON.parse(line);
        if (event.event) {
          events.push(event);
          for (const waiter of waiters.splice(0)) waiter();
        }
      } catch {
        process.stderr.write(`${line}\n`);
      }
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const waitEvent = async (name) => {
    for (;;) {
      const found = events.find((event) => event.event === name);
      if (found) return found;
      await Promise.race([new Promise((resolve) => waiters.push(resolve)), exited.then(() => { throw new Error(`worker exited before "${name}"`); })]);
    }
  };
  return { child, waitEvent, exited };
}

async function runPass(workerCount, sessionIds) {
  const queue = `mce_bench_worker_${workerCount}_${Date.now().toString(36)}`;
  const admin = new Connection({ url: AMQP_URL, connectionName: 'mce-bench-admin' });
  await clearResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
  try {
    const enqueueStart = performance.now();
    await enqueueSessions(AMQP_URL, queue, sessionIds);
    const enqueueSeconds = (performance.now() - enqueueStart) / 1000;

    const workers = Array.from({ length: workerCount }, () => startWorker(queue));
    await Promise.all(workers.map((worker) => worker.waitEvent('ready')));
    for (;;) {
      const { messageCount } = await admin.queueDeclare({ queue, passive: true });
      if (messageCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The queue is empty: stop the workers; each finishes its in-flight batches, then reports.
    for (const worker of workers) worker.child.kill('SIGTERM');
    const stats = await Promise.all(workers.map((worker) => worker.waitEvent('stats')));
    const codes = await Promise.all(workers.map((worker) => worker.exited));
    if (codes.some((code) => code !== 0)) throw new Error(`a worker exited with ${codes.join(', ')}`);

    const processed = stats.reduce((sum, s) => sum + s.sessions, 0);
    const start = Math.min(...stats.filter((s) => s.first).map((s) => s.first));
    const end = Math.max(...stats.filter((s) => s.last).map((s) => s.last));
    const durations = stats.flatMap((s) => s.durations).sort((a, b) => a - b);
    const { messageCount: left } = await admin.queueDeclare({ queue, passive: true });
    const stored = await countResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
    return {
      stored,
      workers: workerCount,
      processed,
      perWorker: stats.map((s) => s.sessions),
      left,
      seconds: (end - start) / 1000,
      rate: processed / ((end - start) / 1000),
      batches: durations.length,
      p50: percentile(durations, 50),
      p99: percentile(durations, 99),
      enqueueRate: sessionIds.length / enqueueSeconds,
      cpuPerSession: stats.reduce((sum, s) => sum + s.cpuMicros, 0) / 1000 / processed,
      cpuShare: stats.reduce((sum, s) => sum + s.cpuMicros, 0) / 1e6 / ((end - start) / 1000),
    };
  } finally {
    for (const name of Object.values(queueNames(queue))) await admin.queueDelete({ queue: name }).catch(() => undefined);
    await admin.close();
    await clearResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
  }
}

const prepared = await prepareSessions(args.processor, { pgUrl: PG_URL, schema: SCHEMA, count: SESSIONS, fresh: args.fresh });
console.log(`worker benchmark: ${SESSIONS} sessions × ${prepared.spansPerSession} spans, batch ${BATCH_SIZE}, prefetch ${2 * BATCH_SIZE}, processor "${args.processor}"${args['session-only'] ? ', Session-level metrics only' : ''}`);
if (prepared.wroteSeconds !== undefined) console.log(`  sessions written to the store in ${fmt(prepared.wroteSeconds)} s`);

const results = [];
for (const count of WORKER_COUNTS) {
  const result = await runPass(count, prepared.sessionIds);
  results.push(result);
  console.log(
    `  ${count} worker${count > 1 ? 's' : ' '}: ${fmt(result.rate)} sessions/s (${result.processed} in ${fmt(result.seconds, 2)} s; per worker ${result.perWorker.join(' / ')}; left in queue ${result.left}), ` +
      `${result.batches} batches, batch latency p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms; enqueue ${fmt(result.enqueueRate, 0)} msg/s`,
  );
  if (result.stored) console.log(`             stored ${result.stored.results} results for ${result.stored.sessions} sessions`);
  console.log(`             worker CPU ${fmt(result.cpuPerSession, 2)} ms per session (${fmt(100 * result.cpuShare, 0)}% of one core over the pass, all workers)`);
}
const one = results.find((r) => r.workers === 1);
const two = results.find((r) => r.workers === 2);
if (one) console.log(`  one worker: ${fmt(one.rate)} sessions/s (target ≥ 500)`);
if (one && two) console.log(`  scaling, two workers / one: ${fmt(two.rate / one.rate, 2)}× (target ≥ 1.3×)`);
await prepared.close();
if (args.drop && args.processor !== 'noop') {
  const { dropBenchSchema } = await import('./service.mjs');
  await dropBenchSchema({ pgUrl: PG_URL, schema: SCHEMA });
}
