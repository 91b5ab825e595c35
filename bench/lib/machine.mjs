// The machine's speed at the time of a benchmark run, so that figures of different days can be compared: a shared
// (virtual) machine's speed varies from day to day more than most code changes do. Three fixed workloads, each the
// median of 5 runs (about 2 s in all):
//   - an integer loop (the CPU alone);
//   - dependent random reads over 256 KiB (in the CPU caches) and over 64 MiB (in memory): one read cannot start
//     before the one it depends on has finished, so each costs the latency of where the data is. Their ratio is what
//     the caches are worth: the main reason a large session costs more per span than a small one.
import { loadavg } from 'node:os';

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function integerLoopMs() {
  const start = performance.now();
  let x = 0;
  for (let i = 0; i < 5e7; i++) x = (x + Math.imul(i, 2654435761)) | 0;
  const ms = performance.now() - start;
  if (x === 42) console.log(''); // the result is used, so the loop is not optimised away
  return ms;
}

/** A random cycle through `entries` slots (Sattolo's shuffle), deterministic. */
function randomCycle(entries) {
  const next = new Uint32Array(entries);
  for (let i = 0; i < entries; i++) next[i] = i;
  let seed = 0x9e3779b9;
  for (let i = entries - 1; i > 0; i--) {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    const j = (seed >>> 0) % i;
    const t = next[i];
    next[i] = next[j];
    next[j] = t;
  }
  return next;
}

function nsPerRead(next, reads) {
  const start = performance.now();
  let at = 0;
  for (let i = 0; i < reads; i++) at = next[at];
  const ns = ((performance.now() - start) * 1e6) / reads;
  if (at === 0xffffffff) console.log('');
  return ns;
}

export function measureMachine() {
  const small = randomCycle((256 * 1024) / 4);
  const large = randomCycle((64 * 1024 * 1024) / 4);
  const loop = [], cached = [], uncached = [];
  for (let r = 0; r < 5; r++) {
    loop.push(integerLoopMs());
    cached.push(nsPerRead(small, 1e6));
    uncached.push(nsPerRead(large, 1e6));
  }
  return { loopMs: median(loop), cachedNs: median(cached), uncachedNs: median(uncached), load: loadavg() };
}

/** One line for a benchmark's header. */
export function machineLine(m = measureMachine()) {
  const f = (n, d = 1) => n.toFixed(d);
  return (
    `machine: integer loop ${f(m.loopMs)} ms; a dependent read ${f(m.cachedNs)} ns in the caches (256 KiB), ` +
    `${f(m.uncachedNs)} ns in memory (64 MiB), ${f(m.uncachedNs / m.cachedNs)}×; load average ${m.load.map((l) => f(l, 2)).join(' ')}`
  );
}

// Run alone: `node bench/lib/machine.mjs`.
if (import.meta.url === `file://${process.argv[1]}`) console.log(machineLine());
