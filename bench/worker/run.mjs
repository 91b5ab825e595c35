// Worker benchmark: 10,000 queued sessions of about 50 spans, computed with the deterministic catalog and written to
// the PostgreSQL store by one worker process, then by two; prints sessions/s, the scaling ratio and the p50/p99
// batch latency. Needs the built packages (npm run build), PostgreSQL and RabbitMQ.
//
//   node bench/worker/run.mjs [--sessions 10000] [--batch-size 50] [--prefetch 100] [--workers 1,2] [--processor service|noop]
//                             [--fresh]   (rewrite the sessions even when the schema already holds them)
//                             [--session-only]   (Session-level metrics only: engine.recursive = false)
//                             [--drop]    (remove the benchmark schema afterwards; kept by default for the next run)
//                             [--cpu-prof DIR]   (each worker process writes a V8 CPU profile into DIR)
//                             [--rounds 3]   (the passes run this many times, alternating; medians are reported:
//                                             on a 2-core machine shared with the services one pass varies by ±10%)
// Environment: MCE_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), MCE_BENCH_AMQP_URL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Connection } from 'rabbitmq-client';
import { elementCount } from '@mce/client';
import { enqueueSessions, queueNames } from '@mce/worker';
import { machineLine } from '../lib/machine.mjs';
import { processCpuMs } from '../lib/process-cpu.mjs';
import { clearResults, countResults, prepareSessions } from './processor.mjs';
import { syntheticSession } from './sessions.mjs';

// Process names of the services that share the machine with the workers.
const POSTGRES = ['postgres'];
const RABBITMQ = ['beam.smp', 'erl_child_setup', 'epmd'];

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '10000' },
    'batch-size': { type: 'string', default: '50' },
    prefetch: { type: 'string' },
    workers: { type: 'string', default: '1,2' },
    processor: { type: 'string', default: 'service' },
    fresh: { type: 'boolean', default: false },
    'session-only': { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
});
const SESSIONS = Number(args.sessions);
const BATCH_SIZE = Number(args['batch-size']);
// The worker's default: two batches' worth, so the next batch gathers while one computes.
const PREFETCH = Number(args.prefetch ?? 2 * BATCH_SIZE);
const WORKER_COUNTS = args.workers.split(',').map(Number);
const ROUNDS = Number(args.rounds);
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
      MCE_WORKER_PREFETCH: String(PREFETCH),
      MCE_WORKER_HEALTH_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  let processed = 0;
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
        if (event.event === 'batch') processed += event.sessions;
        else if (event.event) {
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
  return { child, waitEvent, exited, processed: () => processed };
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
    const servicesBefore = { pg: processCpuMs(POSTGRES), mq: processCpuMs(RABBITMQ) };
    // Until the workers report every session processed (an empty queue is not enough: a worker may hold a prefetched
    // batch it has not started, which a stop would hand back to the broker).
    await Promise.race([
      new Promise((resolve) => {
        const check = () => {
          if (workers.reduce((sum, worker) => sum + worker.processed(), 0) >= sessionIds.length) resolve();
          else setTimeout(check, 50);
        };
        check();
      }),
      ...workers.map((worker) => worker.exited.then((code) => { throw new Error(`a worker exited early with ${code}`); })),
    ]);
    // All processed: stop the workers; each closes and reports.
    for (const worker of workers) worker.child.kill('SIGTERM');
    const stats = await Promise.all(workers.map((worker) => worker.waitEvent('stats')));
    const codes = await Promise.all(workers.map((worker) => worker.exited));
    // A backend's CPU is counted while it lives, then through the postmaster once it has reaped it: read too early,
    // between the two, the workers' backends went missing (a pass showed 0.18 ms per session instead of 0.7).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const servicesAfter = { pg: processCpuMs(POSTGRES), mq: processCpuMs(RABBITMQ) };
    if (codes.some((code) => code !== 0)) throw new Error(`a worker exited with ${codes.join(', ')}`);

    const processed = stats.reduce((sum, s) => sum + s.sessions, 0);
    const start = Math.min(...stats.filter((s) => s.first).map((s) => s.first));
    const end = Math.max(...stats.filter((s) => s.last).map((s) => s.last));
    const durations = stats.flatMap((s) => s.durations).sort((a, b) => a - b);
    const { messageCount: left } = await admin.queueDeclare({ queue, passive: true });
    const stored = await countResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
    return {
      stored,
      overlap: workerCount === 2 ? overlapShare(stats[0].intervals, stats[1].intervals, start, end) : undefined,
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
      // Service CPU from the workers' ready to their stop (the pass, give or take the last poll of the queue).
      pgCpuPerSession: servicesAfter.pg === undefined ? undefined : (servicesAfter.pg - servicesBefore.pg) / processed,
      mqCpuPerSession: servicesAfter.mq === undefined ? undefined : (servicesAfter.mq - servicesBefore.mq) / processed,
    };
  } finally {
    for (const name of Object.values(queueNames(queue))) await admin.queueDelete({ queue: name }).catch(() => undefined);
    await admin.close();
    await clearResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
  }
}

/** The union of [start, end] intervals, as sorted disjoint intervals (a worker may run two batches at once). */
function union(intervals) {
  const out = [];
  for (const [start, end] of [...intervals].sort((x, y) => x[0] - y[0])) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** Share of [from, to] during which both workers were inside processBatch. */
function overlapShare(batchesA, batchesB, from, to) {
  const a = union(batchesA);
  const b = union(batchesB);
  let both = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const start = Math.max(a[i][0], b[j][0]);
    const end = Math.min(a[i][1], b[j][1]);
    if (end > start) both += end - start;
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return both / (to - from);
}

const prepared = await prepareSessions(args.processor, { pgUrl: PG_URL, schema: SCHEMA, count: SESSIONS, fresh: args.fresh });
const spansPerSession = elementCount(syntheticSession(0));
console.log(`worker benchmark: ${SESSIONS} sessions × ${spansPerSession} spans, batch ${BATCH_SIZE}, prefetch ${PREFETCH}, processor "${args.processor}"${args['session-only'] ? ', Session-level metrics only' : ''}`);
console.log(`  ${machineLine()}`);
if (prepared.wroteSeconds !== undefined) console.log(`  sessions written to the store in ${fmt(prepared.wroteSeconds)} s`);

const results = [];
for (let round = 1; round <= ROUNDS; round++) {
  if (ROUNDS > 1) console.log(` round ${round} of ${ROUNDS}`);
  for (const count of WORKER_COUNTS) {
    const result = await runPass(count, prepared.sessionIds);
    results.push(result);
    report(count, result);
  }
}

function report(count, result) {
  console.log(
    `  ${count} worker${count > 1 ? 's' : ' '}: ${fmt(result.rate)} sessions/s (${result.processed} in ${fmt(result.seconds, 2)} s; per worker ${result.perWorker.join(' / ')}; left in queue ${result.left}), ` +
      `${result.batches} batches, batch latency p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms; enqueue ${fmt(result.enqueueRate, 0)} msg/s`,
  );
  if (result.stored) console.log(`             stored ${result.stored.results} results for ${result.stored.sessions} sessions`);
  console.log(`             worker CPU ${fmt(result.cpuPerSession, 2)} ms per session (${fmt(100 * result.cpuShare, 0)}% of one core over the pass, all workers)`);
  if (result.overlap !== undefined) {
    // Workers that serialised on each other (a lock, a shared queue consumer) would rarely be in a batch together.
    console.log(`             both workers inside a batch at once ${fmt(100 * result.overlap, 0)}% of the pass`);
  }
  if (result.pgCpuPerSession !== undefined) {
    const total = result.cpuPerSession + result.pgCpuPerSession + result.mqCpuPerSession;
    console.log(
      `             PostgreSQL CPU ${fmt(result.pgCpuPerSession, 2)} ms, RabbitMQ CPU ${fmt(result.mqCpuPerSession, 2)} ms per session; ` +
        `all together ${fmt(total, 2)} ms → at most ${fmt(2000 / total, 0)} sessions/s on 2 cores`,
    );
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ratesOf = (count) => results.filter((r) => r.workers === count).map((r) => r.rate);
const one = ratesOf(1);
const two = ratesOf(2);
const range = (rates) => (rates.length > 1 ? ` (${rates.map((r) => fmt(r, 0)).join(', ')})` : '');
if (one.length) console.log(`  one worker: ${fmt(median(one))} sessions/s median${range(one)} (target ≥ 500)`);
if (two.length) console.log(`  two workers: ${fmt(median(two))} sessions/s median${range(two)}`);
if (one.length && two.length) {
  // Each round's two-worker pass against the one-worker pass of the same round: neighbours share the machine's state.
  const ratios = one.map((rate, i) => (two[i] ?? NaN) / rate).filter(Number.isFinite);
  console.log(`  scaling, two workers / one: ${fmt(median(ratios), 2)}× median of the rounds${ratios.length > 1 ? ` (${ratios.map((r) => fmt(r, 2)).join(', ')})` : ''} (target ≥ 1.3×)`);
}
await prepared.close();
if (args.drop && args.processor !== 'noop') {
  const { dropBenchSchema } = await import('./service.mjs');
  await dropBenchSchema({ pgUrl: PG_URL, schema: SCHEMA });
}
