// One benchmark worker process: the built @mce/worker consuming the benchmark queue with the processor chosen by
// BENCH_PROCESSOR (`service`: MCEWorkerService on the PostgreSQL store; `noop`: acknowledges without computing, to
// measure the queue machinery alone). Times every processBatch call and prints them as JSON when it stops.
import { createLogger, runWorker, workerConfigFrom } from '@mce/worker';
import { createProcessor } from './processor.mjs';

const { processor, close } = await createProcessor(process.env.BENCH_PROCESSOR ?? 'service', {
  pgUrl: process.env.BENCH_PG_URL,
  schema: process.env.BENCH_SCHEMA,
  recursive: process.env.BENCH_RECURSIVE !== 'false',
});

const durations = [];
// [start, end] of each processBatch call in epoch ms (comparable across the worker processes).
const intervals = [];
let readyCpu;
let first;
let last;
let sessions = 0;
const timed = {
  async processBatch(items) {
    const started = performance.now();
    first ??= Date.now();
    const outcome = await processor.processBatch(items);
    durations.push(performance.now() - started);
    intervals.push([performance.timeOrigin + started, performance.timeOrigin + performance.now()]);
    last = Date.now();
    sessions += items.length;
    console.log(JSON.stringify({ event: 'batch', sessions: items.length }));
    return outcome;
  },
};

const result = await runWorker({
  processor: timed,
  config: workerConfigFrom({ health_port: 0 }, process.env),
  logger: createLogger({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' }),
  onStarted: ({ worker }) =>
    void worker.ready().then(() => {
      readyCpu = process.cpuUsage();
      console.log(JSON.stringify({ event: 'ready' }));
    }),
});
// CPU time of this process from ready to stop (µs): what a session costs the worker, whatever else shares the machine.
const { user, system } = process.cpuUsage(readyCpu);
console.log(JSON.stringify({ event: 'stats', first, last, sessions, durations, intervals, cpuMicros: user + system }));
await close();
process.exit(result.exitCode);
