#!/usr/bin/env node
/**
 * Receiver benchmark: N spans in sessions of --per-session spans (a workflow, 3 agents, tasks, LLM and tool calls;
 * each session's root last, as exporters send it), as OTLP protobuf requests of --batch spans (512, the SDK's
 * batch), POSTed to /v1/traces on loopback by --senders concurrent senders, the receiver in the same process. Per
 * store: spans/s accepted and stored (evaluate: none), against `mce ingest`'s throughput on the same spans as an OTLP
 * JSON Lines file into a fresh store of the same kind, in the same run; then with in-process evaluation of the default
 * deterministic metrics as sessions complete (completion by idle time, receiver.complete_on_root off), as fast as it
 * goes and paced at half the rate it evaluated at: the delay from a session's last span to its results stored. Targets: the
 * receiver ≥ 50 % of file ingestion; p95 last-span-to-results ≤ idle + 1 s (paced).
 *
 *   npm run build && node bench/receiver/run.mjs [--spans 100000] [--per-session 100] [--batch 512] [--senders 2] [--idle-ms 1000]
 *
 * PostgreSQL: MCE_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), in a throwaway schema; skipped when
 * it does not answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEFAULT_RECEIVER_SETTINGS, MCEClient, defaultMceConfig, encodeTraceRequest, inProcessEvaluator, openStore, receiverPipeline, serveOtlp } from '@mce/client';
import { machineLine } from '../lib/machine.mjs';
import { sessionSpans } from './spans.mjs';

const { values: args } = parseArgs({
  options: {
    spans: { type: 'string', default: '100000' },
    'per-session': { type: 'string', default: '100' },
    batch: { type: 'string', default: '512' },
    senders: { type: 'string', default: '2' },
    'idle-ms': { type: 'string', default: '1000' },
  },
});
const SPANS = Number(args.spans);
const PER_SESSION = Number(args['per-session']);
const SESSIONS = Math.ceil(SPANS / PER_SESSION);
const BATCH = Number(args.batch);
const SENDERS = Number(args.senders);
const IDLE_MS = Number(args['idle-ms']);
const PG_URL = process.env.MCE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const fmt = (n) => Math.round(n).toLocaleString('en');
const request = (spans) => ({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] });

/** Batches of spans in export order; each knows the sessions whose last span it carries. */
function batches() {
  const out = [];
  let spans = [];
  let closing = [];
  for (let s = 0; s < SESSIONS; s++) {
    const list = [...sessionSpans(s, PER_SESSION)];
    for (const [i, span] of list.entries()) {
      spans.push(span);
      if (i === list.length - 1) closing.push(`session-${s}`);
      if (spans.length === BATCH) {
        out.push({ spans, closing });
        spans = [];
        closing = [];
      }
    }
  }
  if (spans.length > 0) out.push({ spans, closing });
  return out;
}

const nearestRank = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

/** File ingestion of the same spans (OTLP JSON Lines, one batch per line) into a fresh store; spans/s. */
async function fileIngest(openFresh, dir, all) {
  const file = join(dir, 'traces.jsonl');
  writeFileSync(file, all.map((b) => JSON.stringify(request(b.spans))).join('\n') + '\n');
  const client = await MCEClient.open({ config: defaultMceConfig(), store: await openFresh('file'), cache: false });
  try {
    const t = performance.now();
    await client.ingest([file]);
    return SPANS / ((performance.now() - t) / 1000);
  } finally {
    await client.store.close();
    await client.close();
  }
}

/**
 * The receiver on loopback (evaluating, or `evaluate: none`); the bodies sent by SENDERS concurrent senders, as fast
 * as they are taken or paced at `pace` spans/s; its rate and delays.
 */
async function receiverRun(openFresh, all, evaluate, name, pace) {
  const client = await MCEClient.open({ config: defaultMceConfig(), store: await openFresh(name), cache: false });
  const lastSpanAt = new Map();
  const resultsAt = new Map();
  // In-process evaluation, its completion time noted per session.
  const inProcess = inProcessEvaluator(client);
  const evaluator = {
    async evaluate(ids) {
      await inProcess.evaluate(ids);
      const now = performance.now();
      for (const id of ids) resultsAt.set(id, now);
    },
  };
  const quiet = { info() {}, warn() {}, error: (o, m) => console.error(m, o) };
  const settings = { ...DEFAULT_RECEIVER_SETTINGS, sessionIdleMs: IDLE_MS, completeOnRoot: false, maxBodyBytes: 64 << 20, maxBufferedSpans: 1_000_000, evaluate: evaluate ? 'in-process' : 'none' };
  const pipeline = receiverPipeline(client, { settings, env: {}, logger: quiet, evaluator });
  const server = await serveOtlp(pipeline.app, { port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${server.port}/v1/traces`;
  const bodies = all.map((b) => ({ body: encodeTraceRequest(request(b.spans)), closing: b.closing }));
  let next = 0;
  let refused = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: SENDERS }, async () => {
    while (next < bodies.length) {
      const index = next++;
      const { body, closing } = bodies[index];
      // Paced: request i leaves at i × BATCH / pace seconds.
      if (pace) await new Promise((r) => setTimeout(r, Math.max(0, t + (index * BATCH * 1000) / pace - performance.now())));
      for (;;) {
        const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } });
        await res.arrayBuffer();
        if (res.status === 200) break;
        refused++;
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
      }
      const now = performance.now();
      for (const id of closing) lastSpanAt.set(id, now);
    }
  }));
  const acceptSecs = (performance.now() - t) / 1000;
  await pipeline.receiver.settled();
  const waitUntil = performance.now() + 5 * IDLE_MS + 60_000;
  while (evaluate && [...lastSpanAt.keys()].some((id) => !resultsAt.has(id)) && performance.now() < waitUntil) {
    await new Promise((r) => setTimeout(r, 50));
    await pipeline.receiver.settled();
  }
  const delays = [...lastSpanAt].filter(([id]) => resultsAt.has(id)).map(([id, at]) => resultsAt.get(id) - at).sort((a, b) => a - b);
  // A session whose spans were split (its root arrived after its other spans went idle) is counted, not hidden.
  const unevaluated = [...lastSpanAt.keys()].filter((id) => !resultsAt.has(id)).length;
  await pipeline.close();
  await server.close();
  await client.store.close();
  await client.close();
  // Spans/s evaluated: from the first request to the last session's results.
  const evaluatedRate = evaluate && resultsAt.size > 0 ? SPANS / ((Math.max(...resultsAt.values()) - t) / 1000) : undefined;
  return { rate: SPANS / acceptSecs, evaluatedRate, refused, unevaluated, ...(evaluate ? { p50: nearestRank(delays, 0.5), p95: nearestRank(delays, 0.95), max: delays.at(-1) } : {}) };
}

const delayText = (r) => `p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, max ${fmt(r.max)} ms${r.unevaluated ? ` (${r.unevaluated} sessions without results)` : ''}`;

/** Stored without evaluation (the target's rate), with evaluation as fast as it goes, and paced at half its evaluated rate (the delay's target). */
async function measure(kind, open, dir, all) {
  const file = await fileIngest(open, dir, all);
  const alone = await receiverRun(open, all, false, 'alone');
  const loaded = await receiverRun(open, all, true, 'loaded');
  // Half the rate at which sessions were evaluated under load: a load the evaluation keeps up with.
  const pace = loaded.evaluatedRate / 2;
  const paced = await receiverRun(open, all, true, 'paced', pace);
  const ratio = alone.rate / file;
  console.log(`${kind}: file ingest (mce ingest, JSON Lines) ${fmt(file)} spans/s`);
  console.log(`  receiver, stored only:          ${fmt(alone.rate)} spans/s, ${(ratio * 100).toFixed(0)} % of file ingest   target >= 50 %: ${ratio >= 0.5 ? 'met' : 'NOT met'}${alone.refused ? ` (${alone.refused} requests refused and resent)` : ''}`);
  console.log(`  receiver, evaluating as it goes: ${fmt(loaded.rate)} spans/s accepted (${((loaded.rate / file) * 100).toFixed(0)} %), ${fmt(loaded.evaluatedRate)} spans/s evaluated; last span → results under that load: ${delayText(loaded)}`);
  console.log(`  paced at ${fmt(pace)} spans/s (half the evaluated rate): last span → results ${delayText(paced)} (idle ${fmt(IDLE_MS)} ms)   target p95 <= idle + 1 s: ${paced.p95 <= IDLE_MS + 1000 ? 'met' : 'NOT met'}`);
}

function reachable(url) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 5432) });
    socket.setTimeout(1500, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

console.log(machineLine());
const all = batches();
console.log(`${fmt(SPANS)} spans in ${fmt(SESSIONS)} sessions of ${PER_SESSION}, ${all.length} protobuf requests of ${BATCH} spans, ${SENDERS} senders, session_idle_ms ${IDLE_MS}`);
const dir = mkdtempSync(join(tmpdir(), 'mce-bench-receiver-'));
try {
  const sqlite = (name) => openStore(`sqlite:${join(dir, `${name}.db`)}`);
  await measure('SQLite', sqlite, dir, all);
  if (await reachable(PG_URL)) {
    const schemas = [];
    const postgres = (name) => {
      const schema = `mce_bench_rcv_${name}_${process.pid}`;
      schemas.push(schema);
      return openStore(PG_URL, { schema });
    };
    try {
      await measure('PostgreSQL', postgres, dir, all);
    } finally {
      const c = new pg.Client(PG_URL);
      await c.connect();
      for (const schema of schemas) await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    }
  } else console.log(`PostgreSQL not reachable at ${new URL(PG_URL).host}: skipped`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
