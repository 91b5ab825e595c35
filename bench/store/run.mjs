// Store benchmark: bulk-write MetricResults in worker-sized batches (one writeMetricResults = one transaction per
// batch) and read one 10k-span session back, per adapter: SQLite always, PostgreSQL when it answers, Neo4j when
// NEO4J_URI is set; and the same session written in two halves, the second over the first (the store reconciles it
// with the stored part inside the write). Needs the built packages (`npm run build`).
//   node bench/store/run.mjs [--results 1000000] [--batch 5000] [--spans 10000] [--reads 5]
// results/cpu-s counts this process's CPU only (for SQLite that is all the work; for a server, only the client's):
// on a shared machine it shows what the wall-clock rate would be without the contention.
// PostgreSQL: MCE_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), in a throwaway schema.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { elementCount, openStore, storeTargetFromEnv } from '@mce/client';
import { bigSession, DEFINITIONS, resultBatch, resultSessions } from './data.mjs';
import { machineLine } from '../lib/machine.mjs';

const { values } = parseArgs({
  options: {
    results: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '5000' },
    spans: { type: 'string', default: '10000' },
    reads: { type: 'string', default: '5' },
    'neo4j-results': { type: 'string', default: '100000' },
  },
});
const RESULTS = Number(values.results);
const BATCH = Number(values.batch);
const SPANS = Number(values.spans);
const READS = Number(values.reads);
const PG_URL = process.env.MCE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGETS = { sqlite: 100_000, postgres: 30_000 };

const reachable = (url) =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok) => (socket.destroy(), resolve(ok));
    socket.setTimeout(1500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function bench(label, open, results) {
  const store = await open();
  const rejectedLogger = [];
  try {
    // Results: batches are built before their write is timed (a worker has them in memory when it flushes).
    const sessions = resultSessions(results);
    for (let i = 0; i < sessions.length; i += 1000) await store.writeSessions(sessions.slice(i, i + 1000));
    let writeMs = 0;
    let cpuMs = 0;
    let written = 0;
    for (let from = 0; from < results; from += BATCH) {
      const batch = resultBatch(from, Math.min(BATCH, results - from));
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      const outcome = await store.writeMetricResults(DEFINITIONS, batch);
      writeMs += ms(t0);
      const cpu = process.cpuUsage(c0);
      cpuMs += (cpu.user + cpu.system) / 1000;
      written += outcome.written;
      rejectedLogger.push(...outcome.rejected);
    }
    if (written !== results || rejectedLogger.length) throw new Error(`${label}: wrote ${written}/${results}`);

    const session = bigSession(`bench-big-${label}`, SPANS);
    let t0 = process.hrtime.bigint();
    await store.writeSessions([session]);
    const sessionWriteMs = ms(t0);
    const reads = [];
    for (let i = 0; i < READS; i++) {
      t0 = process.hrtime.bigint();
      const back = await store.getSession(session.id);
      reads.push(ms(t0));
      if (!back || elementCount(back) !== SPANS) throw new Error(`${label}: read ${back ? elementCount(back) : 0}/${SPANS} spans`);
    }
    // The same session written in two parts (as two ingests of a split export write it): the second part is
    // reconciled with the stored first one inside the write.
    const [first, second] = halves({ ...session, id: `${session.id}-parts` });
    await store.writeSessions([first]);
    t0 = process.hrtime.bigint();
    await store.writeSessions([second]);
    const secondPartMs = ms(t0);
    const joined = await store.getSession(first.id);
    if (!joined || elementCount(joined) !== SPANS) throw new Error(`${label}: parts read back ${joined ? elementCount(joined) : 0}/${SPANS} spans`);
    t0 = process.hrtime.bigint();
    const sessionResults = await store.getMetricResults('bench-session-0', { recursive: true });
    const resultsReadMs = ms(t0);
    // Results across sessions (GET /results): the newest page of all, and the newest page of one metric at one level.
    t0 = process.hrtime.bigint();
    const newest = await store.queryMetricResults({ limit: 100 });
    const newestMs = ms(t0);
    t0 = process.hrtime.bigint();
    const filtered = await store.queryMetricResults({ metrics: ['Duration'], levels: ['ToolCall'], limit: 100 });
    const filteredMs = ms(t0);
    if (newest.length !== 100) throw new Error(`${label}: the newest page held ${newest.length} results`);
    // The summary of every stored result (GET /results/summary): each (Metric, level) group ranked in the database.
    t0 = process.hrtime.bigint();
    const summary = await store.summarizeMetricResults({});
    const summaryMs = ms(t0);
    const summarized = summary.reduce((sum, row) => sum + row.count, 0);
    return {
      label,
      results,
      seconds: writeMs / 1000,
      perSecond: results / (writeMs / 1000),
      perCpuSecond: results / (cpuMs / 1000),
      sessionWriteMs,
      secondPartMs,
      firstReadMs: reads[0],
      medianReadMs: median(reads),
      resultsReadMs,
      resultsRead: sessionResults.length,
      newestMs,
      filteredMs,
      filteredRows: filtered.length,
      summaryMs,
      summaryRows: summary.length,
      summarized,
    };
  } finally {
    await store.close();
  }
}

/** The session's calls that start in the first half of its window, and the rest, each as a session part. */
function halves(session) {
  const middle = (session.startTime + session.endTime) / 2;
  const part = (keep, startTime, endTime) => ({
    ...session,
    startTime,
    endTime,
    ...Object.fromEntries(['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls'].map((k) => [k, session[k].filter((c) => keep(c.startTime))])),
  });
  return [part((t) => t < middle, session.startTime, middle), part((t) => t >= middle, middle, session.endTime)];
}

const rows = [];
const quiet = { logger: { warn: (d, m) => console.error(m, JSON.stringify(d)) } };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mce-bench-store-'));
try {
  rows.push(await bench('sqlite', () => openStore(`sqlite:${path.join(dir, 'bench.db')}`, quiet), RESULTS));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

if (await reachable(PG_URL)) {
  const schema = `mce_bench_${process.pid}`;
  try {
    rows.push(await bench('postgres', () => openStore(PG_URL, { ...quiet, schema }), RESULTS));
  } finally {
    const client = new pg.Client(PG_URL);
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
} else console.log(`PostgreSQL not reachable at ${new URL(PG_URL).host}: skipped`);

if (process.env.NEO4J_URI) {
  rows.push(await bench('neo4j', () => openStore(storeTargetFromEnv({ ...process.env, MCE_STORE_URL: undefined }), quiet), Number(values['neo4j-results'])));
} else console.log('NEO4J_URI not set: Neo4j skipped');

console.log(`\nStore benchmark: results in batches of ${fmt(BATCH)} (one transaction each), one ${fmt(SPANS)}-span session\n${machineLine()}\n`);
console.log('adapter   | results   | write s | results/s | target   | ratio | results/cpu-s | session write ms | 2nd half over 1st ms (÷ whole) | read ms (first / median of ' + READS + ') | results read ms | across sessions ms (newest 100 / one metric and level) | summary of all ms (groups, results)');
console.log('----------|-----------|---------|-----------|----------|-------|---------------|------------------|--------------------------------|---------------------------|----------------|------------------------------------------------------|-----------------------------------');
for (const r of rows) {
  const target = TARGETS[r.label];
  console.log(
    [
      r.label.padEnd(9),
      fmt(r.results).padStart(9),
      fmt(r.seconds, 2).padStart(7),
      fmt(r.perSecond).padStart(9),
      (target ? fmt(target) : '-').padStart(8),
      (target ? `${fmt(r.perSecond / target, 2)}x` : '-').padStart(5),
      fmt(r.perCpuSecond).padStart(13),
      fmt(r.sessionWriteMs, 1).padStart(16),
      `${fmt(r.secondPartMs, 1)} (${fmt(r.secondPartMs / r.sessionWriteMs, 2)}×)`.padStart(30),
      `${fmt(r.firstReadMs, 1)} / ${fmt(r.medianReadMs, 1)}`.padStart(25),
      `${fmt(r.resultsReadMs, 1)} (${r.resultsRead})`.padStart(14),
      `${fmt(r.newestMs, 1)} / ${fmt(r.filteredMs, 1)} (${r.filteredRows})`.padStart(20),
      `${fmt(r.summaryMs, 0)} (${r.summaryRows}, ${fmt(r.summarized)})`.padStart(20),
    ].join(' | '),
  );
}
