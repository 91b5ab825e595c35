// REST API benchmark, bounded and on loopback only: the built server (bench/api/server-process.mjs) in a process of
// its own with one API key, an SQLite store in a temporary directory, and these phases —
//   1. throughput and p99 of an authenticated read route (GET /sessions/{id}), of a synchronous compute and of the
//      OTLP receiver (POST /v1/traces, protobuf, mounted as mce serve mounts it);
//   2. stalls: /healthz polled every 50 ms while a 30 MB invalid POST /sessions body and a computation of a
//      100,000-call session are in flight, with the server's worst event-loop delay (monitorEventLoopDelay);
//   3. 10× the configured limits: bodies 10× the body limit, 10× the queue of asynchronous computations, 10× the rate
//      limit — every answer counted by status, the server still answering health after.
// RSS is read at the start (after seeding and the OTLP phase), at its peak and at the end (the server's, and with its worker processes), and after a GC
// split into anonymous memory (the heaps) and file-backed pages (the binary's); the worst event-loop delay of phases 2
// and 3 apart. Needs the built packages (`npm run build`).
//   node bench/api/run.mjs [--reads 2000] [--computes 200] [--otlp 400] [--calls 100000] [--invalid-mb 30] [--server-cpu-prof DIR]
// (--server-cpu-prof: the server process writes a V8 CPU profile into DIR when it stops, to see where its loop blocks.)
// Targets (issue 27): health p99 < 1 s during phase 2; RSS back within 20% of its start; no crash in phase 3.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { encodeTraceRequest, newApiKey, openStore } from '@mce/client';
import { sessionSpans } from '../receiver/spans.mjs';
import { machineLine } from '../lib/machine.mjs';
import { syntheticSession } from '../lib/synthetic.mjs';

const { values } = parseArgs({
  options: { reads: { type: 'string', default: '2000' }, computes: { type: 'string', default: '200' }, calls: { type: 'string', default: '100000' }, 'invalid-mb': { type: 'string', default: '30' }, otlp: { type: 'string', default: '400' }, 'server-cpu-prof': { type: 'string' } },
});
const READS = Number(values.reads);
const COMPUTES = Number(values.computes);
const CALLS = Number(values.calls);
const INVALID_MB = Number(values['invalid-mb']);
const OTLP = Number(values.otlp);
// The rate above what phase 1 reaches on two cores (about 1,800 reads/s), so that its figures are of answered reads.
const LIMITS = { maxBody: 64 * 1024 * 1024, maxQueued: 10, rate: 2000 };

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes) => `${fmt(bytes / 1024 / 1024)} MB`;
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

const dir = mkdtempSync(join(tmpdir(), 'mce-bench-api-'));
const key = newApiKey();
const child = fork(new URL('./server-process.mjs', import.meta.url), [], {
  execArgv: ['--expose-gc', ...(values['server-cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['server-cpu-prof']}`, '--cpu-prof-interval=500'] : [])],
  env: { ...process.env, BENCH_DB: join(dir, 'kg.db'), BENCH_KEY: key, BENCH_MAX_BODY: String(LIMITS.maxBody), BENCH_MAX_QUEUED: String(LIMITS.maxQueued), BENCH_RATE: String(LIMITS.rate) },
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const replies = [];
child.on('message', (m) => replies.shift()?.(m));
const ask = (message) => new Promise((resolve) => (replies.push(resolve), message && child.send(message)));
let crashed;
child.on('exit', (code, signal) => (crashed = `server exited (${signal ?? code})`));
const { port } = await ask();
const base = `http://127.0.0.1:${port}`;
const auth = { authorization: `Bearer ${key}` };
const JSON_TYPE = { 'content-type': 'application/json' };

/** `count` requests made by `concurrency` loops at once; their latencies and statuses. */
async function load(count, concurrency, request) {
  const latencies = [];
  const statuses = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      const t = performance.now();
      const res = await request(i).catch((error) => ({ status: `error ${error.cause?.code ?? error.message}`, arrayBuffer: async () => undefined }));
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }));
  return { perSecond: count / ((performance.now() - started) / 1000), p99: percentile(latencies, 99), statuses };
}

/** /healthz every 50 ms until `done` settles: the latencies. */
async function pollHealth(done) {
  const latencies = [];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    const t = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
  return latencies;
}

console.log(`\nREST API benchmark (SQLite, loopback, one API key)\n${machineLine()}\n`);
const small = syntheticSession(40, 1);
for (let i = 0; i < 20; i++) {
  const res = await fetch(`${base}/sessions`, { method: 'POST', body: JSON.stringify({ ...small, id: `read-${i}` }), headers: { ...JSON_TYPE, ...auth } });
  if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
}
// 1 (first). The OTLP receiver: requests of one new 100-span session each (the receiver bench's sessions). Run before
// the RSS at the start is read: the spans it stores fill the SQLite store's page cache (64 MiB), memory the server
// keeps by design, not memory the load below should give back.
const otlpRequest = (spans) => ({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] });
const otlpBodies = Array.from({ length: OTLP }, (_, s) => encodeTraceRequest(otlpRequest([...sessionSpans(s, 100)])));
const otlp = await load(OTLP, 4, (i) => fetch(`${base}/v1/traces`, { method: 'POST', body: otlpBodies[i], headers: { 'content-type': 'application/x-protobuf', ...auth } }));
await new Promise((r) => setTimeout(r, 2500)); // a session is stored at its root span, or once idle a second
await ask({ cmd: 'reset' });
const start = await ask({ cmd: 'stats' });

// 1. Throughput.
const reads = await load(READS, 16, (i) => fetch(`${base}/sessions/read-${i % 20}`, { headers: auth }));
const computes = await load(COMPUTES, 4, (i) => fetch(`${base}/sessions/read-${i % 20}/compute?metrics=Duration,LLMCallCount,ToolErrorRate`, { method: 'POST', headers: auth }));
console.log(`authenticated GET /sessions/{id} (40 calls): ${fmt(reads.perSecond)} req/s, p99 ${fmt(reads.p99, 1)} ms, statuses ${JSON.stringify(reads.statuses)}`);
console.log(`POST /sessions/{id}/compute, 3 metrics (40 calls): ${fmt(computes.perSecond)} req/s, p99 ${fmt(computes.p99, 1)} ms, statuses ${JSON.stringify(computes.statuses)}`);
console.log(`  (compute p99 is ${fmt(computes.p99 / reads.p99, 1)}× the read's)`);
console.log(`authenticated POST /v1/traces (OTLP protobuf, 100 spans, ${fmt(otlpBodies[0].byteLength / 1024)} KiB): ${fmt(otlp.perSecond)} req/s = ${fmt(otlp.perSecond * 100)} spans/s, p99 ${fmt(otlp.p99, 1)} ms, statuses ${JSON.stringify(otlp.statuses)}`);

// 2. Stalls.
const call = small.llmCalls[0];
const invalidCalls = Math.ceil((INVALID_MB * 1e6) / JSON.stringify(call).length);
const invalid = JSON.stringify({ ...small, id: 'invalid', llmCalls: Array.from({ length: invalidCalls }, (_, i) => ({ ...call, id: `bad-${i}`, startTime: 'late' })) });
// Stored by this process, through a connection of its own to the server's SQLite file: the server's heap and RSS then
// hold only what serving it costs, not the building of a 100,000-call session.
const seeder = await openStore(`sqlite:${join(dir, 'kg.db')}`);
await seeder.writeSessions([{ ...syntheticSession(CALLS, 7), id: 'huge' }]);
await seeder.close();
await ask({ cmd: 'reset' });
const quiet = await pollHealth(new Promise((r) => setTimeout(r, 1000)));
const invalidPost = fetch(`${base}/sessions`, { method: 'POST', body: invalid, headers: { ...JSON_TYPE, ...auth } }).then((r) => r.status);
const hugeCompute = fetch(`${base}/sessions/huge/compute?metrics=Duration,LLMCallCount`, { method: 'POST', headers: auth }).then(async (r) => [r.status, (await r.arrayBuffer()).byteLength]);
const t0 = performance.now();
const during = await pollHealth(Promise.all([invalidPost, hugeCompute]));
const [invalidStatus, [computeStatus, computeBytes]] = await Promise.all([invalidPost, hugeCompute]);
const stall = await ask({ cmd: 'stats' });
await ask({ cmd: 'reset' });
const afterStalls = await ask({ cmd: 'stats' });
console.log(`\nin flight together for ${fmt((performance.now() - t0) / 1000, 1)} s: a ${fmt(invalid.length / 1e6)} MB invalid POST /sessions (${invalidStatus}) and a compute of ${fmt(CALLS)} calls (${computeStatus}, answer ${mb(computeBytes)})`);
console.log(`  /healthz p99 ${fmt(percentile(during, 99))} ms, worst ${fmt(Math.max(...during))} ms over ${during.length} polls (quiet: p99 ${fmt(percentile(quiet, 99), 1)} ms)`);
console.log(`  server's worst event-loop delay ${fmt(stall.worstDelayMs)} ms (p99 ${fmt(stall.p99DelayMs)} ms); its longest GC pause ${fmt(stall.worstGc.ms)} ms (${stall.worstGc.kind})`);

// 3. 10× the limits.
// Streamed, never held: 10× the body limit in 1 MiB chunks.
const overBytes = LIMITS.maxBody * 10;
const chunk = new Uint8Array(1024 * 1024).fill(0x20);
const overBody = () => {
  let sent = 0;
  return new ReadableStream({ pull: (c) => (sent >= overBytes ? c.close() : (c.enqueue(chunk), (sent += chunk.length))) });
};
const bodies = await load(3, 3, () => fetch(`${base}/sessions`, { method: 'POST', body: overBody(), duplex: 'half', headers: { ...JSON_TYPE, ...auth } }));
const queue = await load(LIMITS.maxQueued * 10, 20, (i) => fetch(`${base}/sessions/read-${i % 20}/compute?metrics=Duration`, { method: 'POST', headers: { ...auth, prefer: 'respond-async' } }));
const flood = await load(LIMITS.rate * 10, 64, () => fetch(`${base}/sessions?limit=1`, { headers: auth }));
const health = await fetch(`${base}/healthz`).then((r) => r.status).catch((e) => e.message);
console.log(`\n10× the limits: bodies of ${mb(overBytes)} ${JSON.stringify(bodies.statuses)}; ${LIMITS.maxQueued * 10} asynchronous computes (queue ${LIMITS.maxQueued}) ${JSON.stringify(queue.statuses)}; ${fmt(LIMITS.rate * 10)} reads at once (limit ${LIMITS.rate}/s) ${JSON.stringify(flood.statuses)}`);
console.log(`  then /healthz: ${health}${crashed ? `; ${crashed}` : ''}`);

// The queued computations finish, then the idle threads end (after 10 s).
let limits = await ask({ cmd: 'stats' });
console.log(`  the server's worst event-loop delay in phase 3 ${fmt(limits.worstDelayMs)} ms (p99 ${fmt(limits.p99DelayMs)} ms); its longest GC pause ${fmt(limits.worstGc.ms)} ms (${limits.worstGc.kind})`);
const peakOf3 = limits.peakRss;
const limitsPeakWithWorkers = limits.peakWithWorkers;
while (limits.pending > 0) {
  await new Promise((r) => setTimeout(r, 500));
  limits = await ask({ cmd: 'stats' });
}
await new Promise((r) => setTimeout(r, 11_000));
await ask({ cmd: 'reset' });
const end = await ask({ cmd: 'stats' });
console.log(`\nRSS: start ${mb(start.rss)}, peak ${mb(Math.max(stall.peakRss, peakOf3, limits.peakRss))}, end ${mb(end.rss)} (${fmt((end.rss / start.rss) * 100)}% of the start)`);
const peakWithWorkers = Math.max(stall.peakWithWorkers, limits.peakWithWorkers, limitsPeakWithWorkers);
console.log(`  with the server's worker processes: peak ${mb(peakWithWorkers)}, end ${mb(end.rss + end.workersRss)}`);
const heaps = (s) => `heap ${mb(s.heapUsed)} used of ${mb(s.heapTotal)}, external ${mb(s.external)} (array buffers ${mb(s.arrayBuffers)})`;
const parts = (s) => `${mb(s.rss)} (anonymous ${mb(s.rssAnon)}, file-backed ${mb(s.rssFile)})`;
console.log(`  after a GC: at the start ${parts(start)}; after phase 2 ${parts(afterStalls)}; at the end ${parts(end)}`);
console.log(`  main thread at the start: ${heaps(start)}; at the end: ${heaps(end)}; the rest of the RSS (threads, native, malloc): ${mb(start.rss - start.heapTotal - start.external)} → ${mb(end.rss - end.heapTotal - end.external)}`);
child.send({ cmd: 'stop' });
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
