// The REST API under benchmark, in a process of its own (so the load's client does not share its event loop): the
// built @mce/client serving an SQLite store on loopback with one API key and the limits given in the environment.
// Answers `{cmd: 'stats'}` and `{cmd: 'reset'}` over IPC with its RSS and its event loop's worst delay
// (perf_hooks.monitorEventLoopDelay) since the last reset. (The 100,000-call session, larger than any body the server
// takes, is written to the store file by the benchmark's own process.)
import { readFileSync, readdirSync } from 'node:fs';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { DEFAULT_RECEIVER_SETTINGS, MCEClient, defaultMceConfig, hashApiKey, openStore, receiverPipeline, serveApi } from '@mce/client';

const env = process.env;
const config = { ...defaultMceConfig(), store: { url: `sqlite:${env.BENCH_DB}` }, cache: { path: null, read: false, write: false, enabled: false } };
const client = await MCEClient.open({ config, store: await openStore(config.store.url), cache: false });
// The OTLP receiver mounted as `mce serve` mounts it (POST /v1/traces behind the same keys); it stores what it is sent
// and evaluates nothing, so its figures are of intake.
const quietLog = { info() {}, warn() {}, error: (o, m) => console.error(m, o) };
const receiver = receiverPipeline(client, { settings: { ...DEFAULT_RECEIVER_SETTINGS, evaluate: 'none', sessionIdleMs: 1000 }, env: {}, logger: quietLog });
const server = await serveApi(client, {
  otlpTraces: receiver.app,
  // As mce serve: computations in a thread of their own (BENCH_IN_PLACE=1: on the event loop, to compare).
  ...(env.BENCH_IN_PLACE ? {} : { computeThread: { config, env } }),
  port: 0,
  keys: [{ name: 'bench', hash: hashApiKey(env.BENCH_KEY), scopes: ['read', 'write', 'admin'] }],
  maxBodyBytes: Number(env.BENCH_MAX_BODY),
  maxQueuedComputations: Number(env.BENCH_MAX_QUEUED),
  maxConcurrentComputations: 2,
  requestsPerSecond: Number(env.BENCH_RATE),
});
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
// With the RSS of the server's worker processes (the body reader's, the compute worker's; Linux: /proc), which hold
// the big work's memory: the server's own RSS alone would hide it.
function workersRss() {
  // Read apart: a thread or a worker that ends meanwhile is left out, not the rest.
  const read = (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const children = readdirSync('/proc/self/task').flatMap((tid) => read(`/proc/self/task/${tid}/children`).trim().split(' ').filter(Boolean));
  return children.reduce((sum, pid) => sum + Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) * 1024, 0);
}
// The RSS's anonymous part (the heaps: V8's and the C allocator's) and its file-backed part (the node binary's and the
// libraries' pages, touched once and kept): only the first is memory the server holds.
function rssParts() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
}
let peakRss = process.memoryUsage().rss;
let peakWithWorkers = peakRss;
setInterval(() => {
  const rss = process.memoryUsage().rss;
  peakRss = Math.max(peakRss, rss);
  peakWithWorkers = Math.max(peakWithWorkers, rss + workersRss());
}, 50).unref();
// The main thread's garbage collections since the last reset: the longest pause and its kind (a major one on the loop
// holds every request for its whole length).
const GC_KINDS = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak callbacks' };
let worstGc = { ms: 0, kind: 'none' };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.duration > worstGc.ms) worstGc = { ms: entry.duration, kind: GC_KINDS[entry.detail?.kind] ?? String(entry.detail?.kind) };
  }
}).observe({ entryTypes: ['gc'] });

process.on('message', async (message) => {
  if (message.cmd === 'stats') {
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    process.send({ rss, ...rssParts(), heapUsed, heapTotal, external, arrayBuffers, worstGc, peakRss, peakWithWorkers, workersRss: workersRss(), pending: server.pendingComputations, worstDelayMs: delay.max / 1e6, p99DelayMs: delay.percentile(99) / 1e6 });
  } else if (message.cmd === 'reset') {
    delay.reset();
    worstGc = { ms: 0, kind: 'none' };
    globalThis.gc?.();
    peakRss = process.memoryUsage().rss;
    peakWithWorkers = peakRss + workersRss();
    process.send({ ok: true });
  } else if (message.cmd === 'stop') {
    await server.close();
    await client.close();
    process.exit(0);
  }
});
process.send({ port: server.port });
