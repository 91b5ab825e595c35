// Engine benchmark: the deterministic native catalog over synthetic sessions (run `npm run build` first).
//   node bench/engine/run.mjs [--strategy asyncio|thread|process|hybrid] [--workers N]
//                             [--sessions 1000] [--spans 200] [--sizes 1000,10000,100000] [--breakdown]
//                             [--semi-space 64]   (V8 young generation size of the phase processes; 0 = V8's default)
//                             [--chunk 100]       (sessions per computeLoadedSessions call in the batch phase)
//                             [--rounds 7]        (rounds of the interleaved ratio measurement)
// Single sessions are measured twice: with the records held until the session is done (what computeLoadedSession
// returns) and streamed (ComputeOptions.onResults: each task's records handed to a consumer, here a counter, as soon
// as the task is done — how a writer would use it).
// Each phase runs in its own child process so that its peak RSS is its own. The synthetic sessions are written once
// to JSON Lines files under bench/.out and each phase reads its input from there, as mce reads a file. Times are wall-clock; CPU time (user +
// system, all threads of the process, GC included) is printed next to them because a shared machine's load skews the
// wall clock. Results live until their batch is returned, so with V8's default young generation (16 MB semi-spaces)
// most of them are promoted and collected by full GCs; node --max-semi-space-size=64 lets them die young. That is
// how mce's processes should be started, and the default here (`--semi-space 0` measures V8's default).
// The interleaved ratio rounds also print the garbage collection that ran inside each timed computation (from the
// `gc` performance entries) and the hot ratio with it taken out of both sizes.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MetricEngine } from '@mce/core';
import { NATIVE_PROVIDER_REF, defaultMetricSelection, nativeProvider } from '@mce/provider-native';
import { machineLine } from '../lib/machine.mjs';
import { readSessionsFile, syntheticSessionsFile } from '../lib/session-files.mjs';
import { spanCount } from '../lib/synthetic.mjs';

const { values: args } = parseArgs({
  options: {
    phase: { type: 'string' },
    strategy: { type: 'string', default: 'asyncio' },
    workers: { type: 'string' },
    sessions: { type: 'string', default: '1000' },
    spans: { type: 'string', default: '200' },
    sizes: { type: 'string', default: '1000,10000,100000' },
    file: { type: 'string' },
    warmup: { type: 'string' },
    breakdown: { type: 'boolean', default: false },
    'semi-space': { type: 'string', default: '64' },
    chunk: { type: 'string', default: '100' },
    small: { type: 'string' },
    large: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    stream: { type: 'boolean', default: false },
  },
});

const MB = 1024 * 1024;
const peakRssBytes = () => process.resourceUsage().maxRSS * 1024; // maxRSS is in kilobytes
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

function newEngine() {
  const engine = new MetricEngine({
    strategy: args.strategy,
    ...(args.workers ? { maxWorkers: Number(args.workers) } : {}),
  });
  engine.registerProvider(nativeProvider, NATIVE_PROVIDER_REF);
  return engine;
}

function tally(computations, into) {
  for (const c of computations) {
    into.results += c.results.length;
    into.failed += c.failed.length;
    into.skipped += c.skipped.length;
  }
}

/** 1,000 sessions × 200 spans, computed in chunks of `--chunk` (what a worker does between two store flushes). */
async function batchPhase() {
  const spans = Number(args.spans);
  const baselineRss = process.memoryUsage().rss;
  const { sessions, bytes: inputBytes } = await readSessionsFile(args.file);
  const loadedPeakRss = peakRssBytes();
  const totalSpans = sessions.reduce((sum, s) => sum + spanCount(s), 0);
  const engine = newEngine();
  const options = { metrics: defaultMetricSelection(), runId: 'bench' };
  // Warm-up (JIT) on other sessions: metrics may cache per session object, so the timed sessions must be fresh.
  for (const session of (await readSessionsFile(args.warmup)).sessions) await engine.computeLoadedSession(session, options);
  const counts = { results: 0, failed: 0, skipped: 0 };
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const chunk = Number(args.chunk);
  for (let i = 0; i < sessions.length; i += chunk) {
    tally(await engine.computeLoadedSessions(sessions.slice(i, i + chunk), options), counts);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpuSeconds = cpuMs(cpuStart) / 1000;
  await engine.close();
  return { count: sessions.length, spans, totalSpans, inputBytes, seconds, cpuSeconds, ...counts, baselineRss, loadedPeakRss, peakRss: peakRssBytes() };
}

/**
 * One session (of the file), computed several times after a warm-up. The best wall time flatters small sessions (a
 * run with no GC at all); the mean CPU time spreads the GC over the runs and is what the size ratio is taken from.
 */
/** Compute options of the single-session phases; streamed records are counted into `counts`. */
function singleOptions(counts) {
  const options = { metrics: defaultMetricSelection(), runId: 'bench' };
  if (!args.stream) return options;
  return { ...options, onResults: (part) => tally([part], counts) };
}

async function singlePhase() {
  const engine = newEngine();
  const streamed = { results: 0, failed: 0, skipped: 0 };
  const options = singleOptions(streamed);
  const warmUp = await readSessionsFile(args.warmup);
  for (const session of warmUp.sessions) await engine.computeLoadedSession(session, options);
  const baselineRss = process.memoryUsage().rss;
  // Each run computes a freshly parsed copy (metrics may cache per session object); parsing is not timed.
  const load = async () => {
    const { sessions, bytes } = await readSessionsFile(args.file);
    return { session: sessions[0], bytes };
  };
  let { session, bytes: inputBytes } = await load();
  const size = spanCount(session);
  const runs = size <= 1000 ? 100 : size <= 10_000 ? 10 : 7; // 100k: the first run (heap growth) is one of seven
  const times = [];
  const cpuTimes = [];
  const counts = { results: 0, failed: 0, skipped: 0 };
  let firstRunPeakRss = 0;
  for (let r = 0; r < runs; r++) {
    if (r > 0) session = (await load()).session;
    Object.assign(streamed, { results: 0, failed: 0, skipped: 0 }); // the warm-up and earlier runs streamed too
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const computation = await engine.computeLoadedSession(session, options);
    times.push(performance.now() - start);
    cpuTimes.push(cpuMs(cpuStart));
    if (r === 0) {
      tally([computation], counts);
      if (args.stream) Object.assign(counts, streamed);
      firstRunPeakRss = peakRssBytes(); // later runs add the previous runs' uncollected garbage
    }
  }
  const breakdown = args.breakdown ? await perMetric(engine, session) : undefined;
  await engine.close();
  const cpuRunsMs = cpuTimes.slice(); // in run order
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  return {
    size,
    inputBytes,
    bestMs: times[0],
    medianMs: times[Math.floor(runs / 2)],
    meanMs: times.reduce((a, b) => a + b, 0) / runs,
    bestCpuMs: cpuTimes[0],
    meanCpuMs: cpuTimes.reduce((a, b) => a + b, 0) / runs,
    medianCpuMs: cpuTimes[Math.floor(runs / 2)],
    cpuRunsMs,
    runs,
    ...counts,
    baselineRss,
    peakRss: firstRunPeakRss,
    peakRssAllRuns: peakRssBytes(),
    breakdown,
  };
}

/**
 * The size ratio, measured in one process with the two sizes interleaved: after one untimed large session, each round
 * times one large session (read from its file), then the mean of 30 small ones (fresh copies). Separate processes run
 * minutes apart on a shared machine, and a 2 ms measurement drifts with it: interleaving cancels the drift, the median
 * of the rounds the rest.
 */
async function ratioPhase() {
  const engine = newEngine();
  const options = singleOptions({ results: 0, failed: 0, skipped: 0 });
  const [small] = (await readSessionsFile(args.small)).sessions;
  for (const session of (await readSessionsFile(args.warmup)).sessions) await engine.computeLoadedSession(session, options);
  const SMALL_RUNS = 30;
  const rounds = [];
  let largeSize = 0;
  // Garbage collections (their start and duration) and the timed windows, matched once the rounds are over: the
  // observer hears of a collection only after the window that contains it.
  const collections = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push([e.startTime, e.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  const gcWithin = ([from, to]) => collections.reduce((sum, [at, ms]) => (at >= from && at < to ? sum + ms : sum), 0);
  // Read again each round rather than cloned from a copy kept alive: no 300 MB template in the heap while timing; the
  // session dies with this function's frame, before the small ones are timed.
  const timeLarge = async () => {
    const [session] = (await readSessionsFile(args.large)).sessions;
    largeSize = spanCount(session);
    globalThis.gc();
    const readMs = timeRead(session);
    const start = performance.now();
    await engine.computeLoadedSession(session, options);
    const end = performance.now();
    return { largeMs: end - start, largeReadMs: readMs, largeWindow: [start, end] };
  };
  // One untimed large session first: the heap grows to its size once per process, and a round that pays for it
  // measures the growth, not the engine (the first 100k run is 30–40% slower than the next ones).
  await timeLarge();
  for (let r = 0; r < Number(args.rounds); r++) {
    const { largeMs, largeReadMs, largeWindow } = await timeLarge();
    // Cold: 30 copies made first, then computed one after the other (each out of the CPU caches by its turn, as a
    // session of a batch is). Hot: each copy made right before it is computed (in the caches, as the large one never is).
    const copies = Array.from({ length: SMALL_RUNS }, () => structuredClone(small));
    globalThis.gc();
    const start = performance.now();
    for (const c of copies) await engine.computeLoadedSession(c, options);
    const smallMs = (performance.now() - start) / SMALL_RUNS;
    copies.length = 0;
    globalThis.gc();
    let hotTotal = 0;
    let hotReadTotal = 0;
    const hotWindows = [];
    for (let i = 0; i < SMALL_RUNS; i++) {
      const copy = structuredClone(small);
      hotReadTotal += timeRead(copy);
      const hotStart = performance.now();
      await engine.computeLoadedSession(copy, options);
      const hotEnd = performance.now();
      hotTotal += hotEnd - hotStart;
      hotWindows.push([hotStart, hotEnd]);
    }
    const hotMs = hotTotal / SMALL_RUNS;
    const readRatio = largeReadMs / (hotReadTotal / SMALL_RUNS);
    rounds.push({ largeMs, smallMs, ratio: largeMs / smallMs, hotMs, hotRatio: largeMs / hotMs, readRatio, largeWindow, hotWindows });
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // the last collections' entries arrive
  observer.disconnect();
  for (const round of rounds) {
    round.largeGcMs = gcWithin(round.largeWindow);
    round.hotGcMs = round.hotWindows.reduce((sum, w) => sum + gcWithin(w), 0) / SMALL_RUNS;
    round.hotRatioWithoutGc = (round.largeMs - round.largeGcMs) / (round.hotMs - round.hotGcMs);
    delete round.largeWindow;
    delete round.hotWindows;
  }
  await engine.close();
  return { smallSize: spanCount(small), largeSize, rounds };
}

/**
 * Milliseconds of the least work any metric does: one loop reading every call's start and end time (the sum is
 * checked so the loop is not optimised away). Its size ratio is what the memory hierarchy alone makes of linear work.
 */
function timeRead(session) {
  const start = performance.now();
  let sum = 0;
  for (const calls of [session.masCalls, session.agentCalls, session.taskCalls, session.llmCalls, session.toolCalls]) {
    for (let i = 0; i < calls.length; i++) sum += calls[i].endTime - calls[i].startTime;
  }
  const ms = performance.now() - start;
  if (!(sum >= 0)) throw new Error('a synthetic call ends before it starts');
  return ms;
}

/** Time of each (level, metric) task alone (dependencies included), slowest first. */
async function perMetric(engine, session) {
  const rows = [];
  for (const [level, names] of Object.entries(defaultMetricSelection())) {
    for (const name of names) {
      const start = performance.now();
      await engine.computeLoadedSession(session, { metrics: { [level]: [name] }, runId: 'bench' });
      rows.push({ task: `${name}@${level}`, ms: performance.now() - start });
    }
  }
  return rows.sort((a, b) => b.ms - a.ms).slice(0, 8);
}

function runPhase(phaseArgs, extraNodeFlags = []) {
  const script = fileURLToPath(import.meta.url);
  const passThrough = [
    '--strategy',
    args.strategy,
    ...(args.workers ? ['--workers', args.workers] : []),
    ...(args.breakdown ? ['--breakdown'] : []),
  ];
  const semiSpace = Number(args['semi-space']);
  const nodeFlags = [...(semiSpace > 0 ? [`--max-semi-space-size=${semiSpace}`] : []), ...extraNodeFlags];
  const out = execFileSync(process.execPath, [...nodeFlags, script, ...phaseArgs, ...passThrough], {
    encoding: 'utf8',
    maxBuffer: 16 * MB,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1));
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  if (args.phase === 'batch') return console.log(JSON.stringify(await batchPhase()));
  if (args.phase === 'single') return console.log(JSON.stringify(await singlePhase()));
  if (args.phase === 'ratio') return console.log(JSON.stringify(await ratioPhase()));

  const metricCount = new Set(Object.values(defaultMetricSelection()).flat()).size;
  console.log(`mce engine benchmark — strategy ${args.strategy}, ${metricCount} deterministic metrics, Node ${process.version}`);
  const semiSpace = Number(args['semi-space']);
  console.log(
    semiSpace > 0
      ? `phases run with node --max-semi-space-size=${semiSpace} (--semi-space 0 for V8's default young generation)`
      : "phases run with V8's default young generation",
  );
  console.log(`${machineLine()} (wall-clock figures assume an idle machine)`);

  const batchFile = await syntheticSessionsFile(Number(args.sessions), Number(args.spans));
  const batchWarmup = await syntheticSessionsFile(50, Number(args.spans), 1_000_000);
  const b = runPhase(['--phase', 'batch', '--file', batchFile, '--warmup', batchWarmup, '--spans', args.spans, '--chunk', args.chunk]);
  const spansPerSec = b.totalSpans / b.seconds;
  console.log(
    `\nbatch: ${fmt(b.count)} sessions × ${b.spans} spans = ${fmt(b.totalSpans)} spans, input ${fmt(b.inputBytes / MB, 1)} MB JSON, ${args.chunk} sessions per call`,
  );
  console.log(`  time            ${fmt(b.seconds, 2)} s wall, ${fmt(b.cpuSeconds, 2)} s CPU`);
  console.log(`  sessions/s      ${fmt(b.count / b.seconds)}`);
  console.log(`  spans/s         ${fmt(spansPerSec)}   (target ≥ 200,000; per CPU-second: ${fmt(b.totalSpans / b.cpuSeconds)})`);
  console.log(`  results         ${fmt(b.results)} (+ ${fmt(b.skipped)} skipped, ${fmt(b.failed)} failed)`);
  console.log(`  peak RSS        ${fmt(b.peakRss / MB)} MB = ${fmt(b.peakRss / b.inputBytes, 2)} × input   (target < 4)`);
  console.log(
    `                  before loading ${fmt(b.baselineRss / MB)} MB (Node + modules), peak after loading the sessions ${fmt(b.loadedPeakRss / MB)} MB`,
  );

  const warmupFile = await syntheticSessionsFile(3, 1000, 1000);
  const files = [];
  for (const size of args.sizes.split(',').map(Number)) files.push(await syntheticSessionsFile(1, size, 7));
  for (const stream of [false, true]) singleSessions(files, warmupFile, stream);
}

function singleSessions(files, warmupFile, stream) {
  const mode = stream ? ['--stream'] : [];
  console.log(
    stream
      ? '\nsingle session, records streamed (onResults: each task\'s records handed over when the task is done):'
      : '\nsingle session, records held (returned when the session is done):',
  );
  console.log(
    '  spans    best ms  median ms    mean ms  mean CPU ms  median CPU ms  spans/CPU-s    results  input MB  peak RSS MB  RSS/input  (RSS−baseline)/input',
  );
  const singles = files.map((file) => ({ ...runPhase(['--phase', 'single', '--file', file, '--warmup', warmupFile, ...mode]), file }));
  for (const s of singles) {
    console.log(
      [
        fmt(s.size).padStart(7),
        fmt(s.bestMs, 1).padStart(10),
        fmt(s.medianMs, 1).padStart(10),
        fmt(s.meanMs, 1).padStart(10),
        fmt(s.meanCpuMs, 1).padStart(12),
        fmt(s.medianCpuMs, 1).padStart(14),
        fmt((s.size / s.meanCpuMs) * 1000).padStart(12),
        fmt(s.results).padStart(10),
        fmt(s.inputBytes / MB, 1).padStart(9),
        fmt(s.peakRss / MB).padStart(12),
        fmt(s.peakRss / s.inputBytes, 2).padStart(10),
        fmt((s.peakRss - s.baselineRss) / s.inputBytes, 2).padStart(21),
      ].join(' '),
    );
  }
  for (const s of singles.filter((x) => x.breakdown)) {
    console.log(`\nslowest tasks alone on the ${fmt(s.size)}-span session (dependencies included):`);
    for (const row of s.breakdown) console.log(`  ${row.task.padEnd(36)} ${fmt(row.ms, 1).padStart(10)} ms`);
  }
  if (singles.length < 2) return;
  const small = singles[0];
  const large = singles.at(-1);
  console.log(
    `  time ratio ${fmt(large.size)} / ${fmt(small.size)} spans: ${fmt(large.meanMs / small.meanMs, 1)} by mean wall time, ${fmt(large.medianMs / small.medianMs, 1)} by median wall time, ${fmt(large.bestMs / small.bestMs, 1)} by best wall time, ${fmt(large.meanCpuMs / small.meanCpuMs, 1)} by mean CPU time, ${fmt(large.medianCpuMs / small.medianCpuMs, 1)} by median CPU time   (linear ≈ ${fmt(large.size / small.size)}, target ≤ 130 for 100k/1k)`,
  );
  console.log(`  CPU ms of each ${fmt(large.size)}-span run, in order: ${large.cpuRunsMs.map((ms) => fmt(ms)).join(', ')}`);
  // Both sizes in one process, interleaved (see ratioPhase). A fixed young generation (min = max): a full GC would
  // otherwise shrink it, and each size would pay for growing it back — the small one relatively more. A long-running
  // mce process sits at the maximum anyway.
  const semiSpace = Number(args['semi-space']);
  const fixedYoung = semiSpace > 0 ? [`--min-semi-space-size=${semiSpace}`] : [];
  const r = runPhase(
    ['--phase', 'ratio', '--small', small.file, '--large', large.file, '--warmup', warmupFile, '--rounds', args.rounds, ...mode],
    ['--expose-gc', ...fixedYoung],
  );
  const summary = (key) => {
    const ratios = r.rounds.map((x) => x[key]).sort((a, b) => a - b);
    return `median ${fmt(ratios[ratios.length >> 1], 1)} (range ${fmt(ratios[0], 1)}–${fmt(ratios.at(-1), 1)})`;
  };
  console.log(
    `  interleaved in one process, ${r.rounds.length} rounds (one ${fmt(r.largeSize)}-span session, then 30 × ${fmt(r.smallSize)} spans cold, then 30 hot; mean per small session):`,
  );
  for (const x of r.rounds) {
    console.log(
      `  ${fmt(x.largeMs, 1).padStart(8)} ms / ${fmt(x.smallMs, 2).padStart(6)} ms cold = ${fmt(x.ratio, 1).padStart(5)};  / ${fmt(x.hotMs, 2).padStart(6)} ms hot = ${fmt(x.hotRatio, 1).padStart(5)};  GC inside: ${fmt(x.largeGcMs, 1)} ms of the large, ${fmt(x.hotGcMs, 2)} ms of a hot small`,
    );
  }
  const linear = `linear ≈ ${fmt(r.largeSize / r.smallSize)}, target ≤ 130`;
  console.log(`  time ratio ${fmt(r.largeSize)} / ${fmt(r.smallSize)}, small sessions cold (out of the CPU caches, like the large one): ${summary('ratio')}   (${linear})`);
  console.log(`  time ratio ${fmt(r.largeSize)} / ${fmt(r.smallSize)}, small sessions hot (made right before, in the caches): ${summary('hotRatio')}   (${linear})`);
  console.log(`  time ratio ${fmt(r.largeSize)} / ${fmt(r.smallSize)}, small sessions hot, garbage collection taken out of both: ${summary('hotRatioWithoutGc')}`);
  console.log(`  floor: the ratio of one loop that only reads each call's start and end time, small session hot: ${summary('readRatio')}`);
}

await main();
