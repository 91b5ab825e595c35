// Recovery after an outage: how long one worker takes to drain a backlog of messages back from the retry queue (each
// on its second attempt, one session each), with messages that failed before batched like the others (the worker's
// rule) and processed alone, one processBatch call each (the earlier rule, re-applied here for comparison). The
// processor is MCEWorkerService on the PostgreSQL store with the default deterministic metrics, over the worker
// benchmark's synthetic sessions of about 50 spans. Needs the built packages (npm run build), PostgreSQL and RabbitMQ.
//
//   node bench/worker/recovery.mjs [--messages 2000] [--batch-size 50] [--prefetch 100] [--rounds 3]
//                                  [--rules batched,alone] [--processor service|noop] [--drop]
// Environment: MCE_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), MCE_BENCH_AMQP_URL.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Connection } from 'rabbitmq-client';
import { HEADER, MceWorker, createLogger, queueNames, workerConfigFrom } from '@mce/worker';
import { machineLine } from '../lib/machine.mjs';
import { clearResults, countResults, createProcessor, prepareSessions } from './processor.mjs';

const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '2000' },
    'batch-size': { type: 'string', default: '50' },
    prefetch: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    rules: { type: 'string', default: 'batched,alone' },
    processor: { type: 'string', default: 'service' },
    drop: { type: 'boolean', default: false },
  },
});
const MESSAGES = Number(args.messages);
const BATCH_SIZE = Number(args['batch-size']);
const PREFETCH = Number(args.prefetch ?? 2 * BATCH_SIZE); // the worker's default
const ROUNDS = Number(args.rounds);
const RULES = args.rules.split(',');
for (const rule of RULES) if (rule !== 'batched' && rule !== 'alone') throw new Error(`--rules: unknown rule "${rule}" (batched | alone)`);
const PG_URL = process.env.MCE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const AMQP_URL = process.env.MCE_BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const SCHEMA = 'mce_bench_worker_recovery';

const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * The earlier rule: in a batch, each message that failed before is processed alone, after the fresh ones. It wraps
 * the worker's (private) runBatch exactly as that rule's code did, so everything else is the current worker's.
 */
function processRetriedAlone(worker) {
  if (typeof worker.runBatch !== 'function') throw new Error('MceWorker has no runBatch: the earlier rule cannot be re-applied');
  const runBatch = worker.runBatch.bind(worker);
  worker.runBatch = async (batch) => {
    if (batch.length > 1 && batch.some((entry) => entry.attempt > 1)) {
      const fresh = batch.filter((entry) => entry.attempt <= 1);
      if (fresh.length > 0) await runBatch(fresh);
      for (const entry of batch) if (entry.attempt > 1) await runBatch([entry]);
      return;
    }
    await runBatch(batch);
  };
}

/** The backlog as it stands after an outage: every message back from the retry queue, on its second attempt. */
async function queueBacklog(admin, queue, sessionIds) {
  await admin.queueDeclare({ queue, durable: true });
  const publisher = admin.createPublisher({ confirm: true });
  for (let i = 0; i < sessionIds.length; i += 500) {
    await Promise.all(
      sessionIds.slice(i, i + 500).map((sessionId) =>
        publisher.send({ routingKey: queue, durable: true, messageId: randomUUID(), headers: { [HEADER.attempts]: 2 } }, { session_id: sessionId }),
      ),
    );
  }
  await publisher.close();
}

async function runPass(rule, sessionIds, processor) {
  const queue = `mce_bench_recovery_${rule}_${Date.now().toString(36)}`;
  const admin = new Connection({ url: AMQP_URL, connectionName: 'mce-bench-admin' });
  await clearResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
  const calls = [];
  const counting = {
    processBatch(items) {
      calls.push(items.length);
      return processor.processBatch(items);
    },
  };
  try {
    await queueBacklog(admin, queue, sessionIds);
    const config = workerConfigFrom({ amqp_url: AMQP_URL, queue, batch_size: BATCH_SIZE, prefetch: PREFETCH, health_port: 0 }, {});
    const worker = new MceWorker({ config, processor: counting, logger: createLogger({ level: 'warn' }), connectionName: 'mce-bench-recovery' });
    if (rule === 'alone') processRetriedAlone(worker);
    await worker.ready();
    const started = performance.now();
    for (;;) {
      const processed = (await worker.metrics.messagesProcessed.get()).values[0]?.value ?? 0;
      if (processed >= sessionIds.length) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - started) / 1000;
    await worker.close();
    const stored = await countResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
    if (stored && stored.sessions !== sessionIds.length) throw new Error(`${rule}: ${stored.sessions} sessions stored, expected ${sessionIds.length}`);
    return { rule, seconds, calls: calls.length, largest: Math.max(...calls), stored };
  } finally {
    for (const name of Object.values(queueNames(queue))) await admin.queueDelete({ queue: name }).catch(() => undefined);
    await admin.close();
  }
}

const prepared = await prepareSessions(args.processor, { pgUrl: PG_URL, schema: SCHEMA, count: MESSAGES, fresh: false });
const { processor, close } = await createProcessor(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
console.log(
  `worker recovery: a backlog of ${MESSAGES} retried messages (attempt 2, one session each), batch ${BATCH_SIZE}, prefetch ${PREFETCH}, ` +
    `processor "${args.processor}", ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}`,
);
console.log(`  ${machineLine()}`);
if (prepared.wroteSeconds !== undefined) console.log(`  sessions written to the store in ${fmt(prepared.wroteSeconds)} s`);

const results = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const rule of RULES) {
      const result = await runPass(rule, prepared.sessionIds, processor);
      results.push(result);
      console.log(
        `  round ${round}, ${rule.padEnd(7)}: drained in ${fmt(result.seconds, 2)} s (${fmt(MESSAGES / result.seconds, 0)} messages/s), ` +
          `${result.calls} processBatch calls (largest ${result.largest} sessions)${result.stored ? `, ${result.stored.results} results stored` : ''}`,
      );
    }
  }
} finally {
  await clearResults(args.processor, { pgUrl: PG_URL, schema: SCHEMA });
  await close();
  await prepared.close();
}

const secondsOf = (rule) => results.filter((r) => r.rule === rule).map((r) => r.seconds);
for (const rule of RULES) {
  const seconds = secondsOf(rule);
  console.log(`  ${rule}: ${fmt(median(seconds), 2)} s median (${seconds.map((s) => fmt(s, 2)).join(', ')}), ${fmt(MESSAGES / median(seconds), 0)} messages/s`);
}
if (RULES.includes('batched') && RULES.includes('alone')) {
  // Each round's two passes against each other: neighbours share the machine's state.
  const batched = secondsOf('batched');
  const ratios = secondsOf('alone').map((s, i) => s / batched[i]);
  console.log(`  alone / batched: ${fmt(median(ratios), 1)}× the drain time, median of the rounds (${ratios.map((r) => fmt(r, 1)).join(', ')})`);
}
if (args.drop && args.processor !== 'noop') {
  const { dropBenchSchema } = await import('./service.mjs');
  await dropBenchSchema({ pgUrl: PG_URL, schema: SCHEMA });
}
