#!/usr/bin/env node
/**
 * Ingestion benchmark: writes an OTLP JSON Lines file of N spans in N/100 sessions (streamed write, --batch spans
 * per line, 25 by default; GenAI attributes with messages), then streams it through the reader and normaliser and
 * prints spans/s, file size, peak RSS and RSS / file size. Targets: ≥ 100,000 spans/s; peak RSS < 2× the file size.
 * Then (unless --no-store) runs what `mce ingest` runs — MCEClient.ingest into a fresh SQLite store — on the same
 * file in another fresh process and prints its rate and peak RSS. Target: peak RSS < 500 MB for 1M spans.
 * Then (unless --no-compute) runs the whole process `mce compute --input FILE --no-store` on the same file (the
 * default metric selection, its output discarded) and prints its time, sessions/s and peak RSS: it computes the
 * sessions as they are read, so its peak RSS stays bounded as the ingest's does (it read every session first).
 *
 *   npm run build && node bench/ingest/run.mjs [--spans 1000000] [--sessions 10000] [--window 50000] [--batch 25] [--no-compute] [--keep]
 *
 * With --session-json it measures the session JSON read path instead: N synthetic sessions of --calls calls each
 * (bench/lib, cached under bench/.out), read as a JSON Lines file (one session per line) and as one
 * `{ "sessions": [...] }` document, each --repeat times in a fresh process; prints calls/s (best and median).
 *
 *   npm run build && node bench/ingest/run.mjs --session-json [--sessions 1000] [--calls 200] [--repeat 3]
 *
 * With --real-trace it measures a real trace instead: the 126-span ClickHouse fixture copied to --spans spans (whole copies: 5,040 for
 * the default 5,000, about 72 MB; bench/lib/real-trace.mjs), then, --repeat times taking turns, the whole process of
 * `mce compute --input FILE --no-store` against the floor of a process that only reads the file and JSON.parses it:
 * wall-clock time and peak RSS of each (/usr/bin/time), their ratio, and peak RSS against the file size.
 * Targets: ≤ 1.5× the floor's time; peak RSS ≤ 3× the file.
 *
 *   npm run build && node bench/ingest/run.mjs --real-trace [--spans 5000] [--repeat 3]
 */
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MCEClient, defaultMceConfig, elementCount, streamSessions } from '@mce/client';
import { machineLine } from '../lib/machine.mjs';
import { OUT_DIR, syntheticSessionsFile } from '../lib/session-files.mjs';
import { writeReplicatedTrace } from '../lib/real-trace.mjs';

const { values: args } = parseArgs({
  options: {
    spans: { type: 'string' },
    sessions: { type: 'string' },
    window: { type: 'string', default: '50000' },
    batch: { type: 'string', default: '25' },
    keep: { type: 'boolean', default: false },
    ingest: { type: 'string' },
    'ingest-store': { type: 'string' },
    'no-store': { type: 'boolean', default: false },
    'no-compute': { type: 'boolean', default: false },
    'session-json': { type: 'boolean', default: false },
    calls: { type: 'string', default: '200' },
    repeat: { type: 'string', default: '3' },
    'real-trace': { type: 'boolean', default: false },
  },
});
const SPANS = Number(args.spans ?? (args['real-trace'] ? 5000 : 1_000_000));
const SESSIONS = Number(args.sessions ?? Math.max(1, Math.round(SPANS / 100)));
const WINDOW = Number(args.window);
const PER_SESSION = Math.max(4, Math.floor(SPANS / SESSIONS));
// Spans per line: an OTLP file exporter writes one ExportTraceServiceRequest (one batch) per line.
const BATCH = Math.max(1, Number(args.batch));

// This process's peak RSS so far (maxRSS is in kilobytes): no sampling timer inside the timed loops.
const peakRssBytes = () => process.resourceUsage().maxRSS * 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const hex = (n, width) => n.toString(16).padStart(width, '0');
const T0 = 1764576000000;
const kv = (k, v) => ({ key: k, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });

/** The spans of one session: a workflow, 3 agents, and LLM / tool calls cycling under them. */
function* sessionSpans(s) {
  const traceId = hex(s + 1, 32);
  const base = T0 + s * 60_000;
  const spanId = (i) => hex(s * 1000 + i + 1, 16);
  const root = spanId(0);
  yield { traceId, spanId: root, name: 'invoke_workflow planner', start: base, end: base + 50_000, attrs: [kv('gen_ai.operation.name', 'invoke_workflow'), kv('gen_ai.conversation.id', `session-${s}`)] };
  const agents = [1, 2, 3].map((a) => spanId(a));
  for (let a = 0; a < 3; a++) {
    yield { traceId, spanId: agents[a], parent: root, name: `invoke_agent agent_${a}`, start: base + a * 15_000, end: base + (a + 1) * 15_000, attrs: [kv('gen_ai.operation.name', 'invoke_agent'), kv('gen_ai.agent.name', `agent_${a}`)] };
  }
  // A realistic mix (cf. the LangGraph fixtures): per agent step a chain/task span, then an LLM call or a tool call.
  for (let i = 4; i < PER_SESSION; i++) {
    const a = i % 3;
    const start = base + a * 15_000 + i * 10;
    const kind = i % 4;
    if (kind === 0 || kind === 2) {
      yield { traceId, spanId: spanId(i), parent: agents[a], name: `step_${i}.task`, start, end: start + 9, attrs: [kv('traceloop.span.kind', 'task'), kv('traceloop.entity.name', `step_${i}`)] };
    } else if (kind === 3) {
      yield {
        traceId, spanId: spanId(i), parent: spanId(i - 1), name: 'execute_tool search', start, end: start + 5,
        attrs: [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'search'), kv('gen_ai.tool.call.id', `call_${i}`), kv('gen_ai.tool.call.arguments', `{"query":"item ${i}"}`), kv('gen_ai.tool.call.result', `{"hits":${i % 7}}`)],
        error: i % 40 === 3,
      };
    } else {
      yield {
        traceId, spanId: spanId(i), parent: spanId(i - 1), name: 'chat gpt-4o-mini', start, end: start + 8,
        attrs: [
          kv('gen_ai.operation.name', 'chat'), kv('gen_ai.provider.name', 'openai'), kv('gen_ai.request.model', 'gpt-4o-mini'),
          kv('gen_ai.usage.input_tokens', 500 + (i % 50)), kv('gen_ai.usage.output_tokens', 20 + (i % 9)), kv('gen_ai.usage.cache_read.input_tokens', i % 3 === 0 ? 256 : 0),
          kv('gen_ai.input.messages', `[{"role":"system","parts":[{"type":"text","content":"You are agent ${a}."}]},{"role":"user","parts":[{"type":"text","content":"Question ${s}/${i}: find the best option."}]}]`),
          kv('gen_ai.output.messages', `[{"role":"assistant","parts":[{"type":"text","content":"Answer ${i}: option ${i % 5} is best."}],"finish_reason":"stop"}]`),
          kv('gen_ai.response.finish_reasons', 'stop'),
        ],
      };
    }
  }
}

function spanJson(sp) {
  return JSON.stringify({
    traceId: sp.traceId, spanId: sp.spanId, ...(sp.parent ? { parentSpanId: sp.parent } : {}), name: sp.name, kind: 'SPAN_KIND_INTERNAL',
    startTimeUnixNano: `${sp.start}000000`, endTimeUnixNano: `${sp.end}000000`, attributes: sp.attrs,
    status: sp.error ? { code: 'STATUS_CODE_ERROR', message: 'timeout' } : {},
  });
}
const line = (spans) =>
  `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bench"}}]},"scopeSpans":[{"scope":{"name":"bench"},"spans":[${spans.join(',')}]}]}]}\n`;

async function generate(path) {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let written = 0;
  let chunk = '';
  let batch = [];
  for (let s = 0; s < SESSIONS && written < SPANS; s++) {
    for (const sp of sessionSpans(s)) {
      batch.push(spanJson(sp));
      written++;
      if (batch.length === BATCH) {
        chunk += line(batch);
        batch = [];
      }
      if (written >= SPANS) break;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
    }
  }
  if (batch.length) chunk += line(batch);
  out.write(chunk);
  out.end();
  await once(out, 'close');
  return written;
}

/** Stream the file through the reader and normaliser in this (fresh) process; print the figures as JSON. */
async function ingest(file) {
  const baseRss = process.memoryUsage().rss;
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  let sessions = 0;
  let elements = 0;
  const stream = streamSessions(file, { windowSpans: WINDOW });
  for await (const s of stream) {
    sessions++;
    elements += elementCount(s);
  }
  const secs = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ sessions, elements, warnings: stream.warnings.total, secs, cpuSecs: (cpu.user + cpu.system) / 1e6, baseRss, peak: peakRssBytes() }));
}

/** `mce ingest`'s path: stream the file into a fresh SQLite store in batches; print the figures as JSON. */
async function ingestIntoStore(file) {
  const dir = mkdtempSync(join(tmpdir(), 'mce-bench-kg-'));
  const baseRss = process.memoryUsage().rss;
  const t = performance.now();
  const client = await MCEClient.open({ config: { ...defaultMceConfig(), store: { url: `sqlite:${join(dir, 'kg.db')}` } }, cache: false });
  try {
    const summary = await client.ingest([file]);
    const secs = (performance.now() - t) / 1000;
    const peak = peakRssBytes();
    const stored = (await client.store.listSessions()).length; // a check, outside the timing
    console.log(JSON.stringify({ sessions: summary.sessionIds.length, stored, calls: summary.calls, secs, baseRss, peak }));
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sessions of a JSON Lines file as one `{ "sessions": [...] }` document beside it (created if missing). */
async function wholeDocument(jsonl) {
  const path = jsonl.replace(/\.jsonl$/, '-document.json');
  if (existsSync(path)) return path;
  const partial = `${path}.partial`;
  const out = createWriteStream(partial, { highWaterMark: 1 << 20 });
  let first = true;
  out.write('{"sessions":[');
  for await (const l of createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity })) {
    if (!l) continue;
    if (!out.write(`${first ? '\n' : ',\n'}${l}`)) await once(out, 'drain');
    first = false;
  }
  out.end('\n]}\n');
  await once(out, 'close');
  renameSync(partial, path);
  return path;
}

/** The session JSON read path: the same sessions as JSON Lines and as one document, each read `--repeat` times. */
async function sessionJsonBench() {
  const count = Number(args.sessions ?? 1000);
  const calls = Number(args.calls);
  const repeat = Math.max(1, Number(args.repeat));
  const jsonl = await syntheticSessionsFile(count, calls);
  const files = [['JSON Lines', jsonl], ['one document', await wholeDocument(jsonl)]];
  console.log(`${count.toLocaleString('en')} sessions × ${calls} calls, files under ${OUT_DIR}`);
  for (const [label, file] of files) {
    const runs = [];
    for (let i = 0; i < repeat; i++) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--ingest', file, '--window', String(WINDOW)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      if (child.status !== 0) throw new Error(`ingest process failed (${child.status})`);
      runs.push(JSON.parse(child.stdout.trim().split('\n').pop()));
    }
    const r = runs[0];
    const wall = runs.map((x) => x.secs);
    const cpu = runs.map((x) => x.cpuSecs);
    const rate = (secs) => Math.round(r.elements / secs).toLocaleString('en');
    console.log(`${label}: ${(statSync(file).size / 1e6).toFixed(1)} MB, ${r.sessions.toLocaleString('en')} sessions, ${r.elements.toLocaleString('en')} calls, warnings ${r.warnings}`);
    console.log(`  wall-clock: best ${Math.min(...wall).toFixed(2)} s (${rate(Math.min(...wall))} calls/s), median ${median(wall).toFixed(2)} s`);
    console.log(`  CPU time:   best ${Math.min(...cpu).toFixed(2)} s (${rate(Math.min(...cpu))} calls/s), median ${median(cpu).toFixed(2)} s   peak RSS ${(Math.max(...runs.map((x) => x.peak)) / 1e6).toFixed(1)} MB`);
  }
}

/**
 * Wall-clock and CPU (user + system) seconds and peak RSS (bytes) of a whole process, as /usr/bin/time measures them;
 * its stdout discarded. On a shared machine the CPU time is the steadier figure: wall-clock includes waiting for a core.
 */
function timedProcess(argv, cwd) {
  const out = join(cwd, 'time.txt');
  const child = spawnSync('/usr/bin/time', ['-o', out, '-f', '%e %U %S %M', ...argv], { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, MCE_METRIC_CACHE: 'none', MODEL_PRICES_REFRESH: 'false' } });
  if (child.status !== 0) throw new Error(`${argv.join(' ')} failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const [secs, user, sys, kb] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { secs, cpu: user + sys, peak: kb * 1024 };
}

const MCE_BIN = fileURLToPath(new URL('../../packages/client/bin/mce.js', import.meta.url));

/** The node flags of a script's `#!/usr/bin/env -S node …` line: run it as the installed command runs. */
function shebangFlags(script) {
  const first = readFileSync(script, 'utf8').split('\n', 1)[0];
  const flags = /^#!\S*env\s+(?:-S\s+)?node\s*(.*)$/.exec(first)?.[1] ?? '';
  return flags.split(/\s+/).filter(Boolean);
}

/** The real-trace run: `mce compute --input … --no-store` against a bare JSON.parse of the same file, in turns. */
function realTraceBench() {
  console.log(machineLine());
  const dir = mkdtempSync(join(tmpdir(), 'mce-bench-real-'));
  const file = join(dir, 'real-trace.json');
  try {
    const { copies, rows } = writeReplicatedTrace(file, SPANS);
    const size = statSync(file).size;
    console.log(`real trace: ${rows.toLocaleString('en')} spans (${copies} copies of the 126-span ClickHouse fixture, one session each): ${(size / 1e6).toFixed(1)} MB`);
    const mce = MCE_BIN;
    const floorArgv = [process.execPath, '-e', `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`];
    // Run where no mce_config.yaml is found: the default metric selection (deterministic only without a judge). No
    // metric cache, and no run-time price refresh (a fetch of the network, no part of reading a file: offline it waits).
    const mceArgv = [process.execPath, ...shebangFlags(mce), mce, 'compute', '--input', file, '--no-store'];
    console.log(`mce run as installed: node ${[...shebangFlags(mce), 'mce.js'].join(' ')} compute --input FILE --no-store`);
    const floors = [];
    const runs = [];
    for (let i = 0; i < Math.max(1, Number(args.repeat)); i++) {
      floors.push(timedProcess(floorArgv, dir));
      runs.push(timedProcess(mceArgv, dir));
    }
    const best = (xs, k) => Math.min(...xs.map((x) => x[k]));
    const med = (xs, k) => median(xs.map((x) => x[k]));
    const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
    const line = (label, xs) =>
      `${label} wall-clock best ${best(xs, 'secs').toFixed(2)} s (median ${med(xs, 'secs').toFixed(2)} s), CPU best ${best(xs, 'cpu').toFixed(2)} s (median ${med(xs, 'cpu').toFixed(2)} s), peak RSS ${mb(best(xs, 'peak'))} (${(best(xs, 'peak') / size).toFixed(2)}× the file)`;
    console.log(line('floor (node: read + JSON.parse):', floors));
    console.log(line('mce compute --input --no-store: ', runs));
    const ratio = best(runs, 'secs') / best(floors, 'secs');
    const cpuRatio = best(runs, 'cpu') / best(floors, 'cpu');
    const rss = best(runs, 'peak') / size;
    console.log(`time / floor: ${ratio.toFixed(2)}× wall-clock, ${cpuRatio.toFixed(2)}× CPU   target <= 1.5×: ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
    console.log(`peak RSS / file size: ${rss.toFixed(2)}×   target <= 3×: ${rss <= 3 ? 'met' : 'NOT met'}`);
  } finally {
    if (!args.keep) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${file}`);
  }
}

if (args['real-trace']) {
  realTraceBench();
} else if (args.ingest) {
  await ingest(args.ingest);
} else if (args['session-json']) {
  await sessionJsonBench();
} else if (args['ingest-store']) {
  await ingestIntoStore(args['ingest-store']);
} else {
  console.log(machineLine());
  const dir = mkdtempSync(join(tmpdir(), 'mce-bench-ingest-'));
  const file = join(dir, 'traces.jsonl');
  try {
    const t = performance.now();
    const spans = await generate(file);
    const size = statSync(file).size;
    console.log(`generated ${spans.toLocaleString('en')} spans in ${SESSIONS.toLocaleString('en')} sessions (${BATCH} spans per line): ${(size / 1e6).toFixed(1)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    // Measured in a fresh process, so the generator's memory is not counted.
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--ingest', file, '--window', String(WINDOW)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`ingest process failed (${child.status})`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop());
    const rate = spans / r.secs;
    const cpuRate = spans / r.cpuSecs;
    console.log(`ingested ${r.sessions.toLocaleString('en')} sessions, ${r.elements.toLocaleString('en')} elements, warnings ${r.warnings}`);
    console.log(`throughput: ${Math.round(rate).toLocaleString('en')} spans/s wall-clock (${r.secs.toFixed(2)} s)   target >= 100,000 spans/s: ${rate >= 100_000 ? 'met' : 'NOT met'}`);
    // On a shared machine wall-clock time includes waiting for a core; CPU time is the work the ingester did.
    console.log(`            ${Math.round(cpuRate).toLocaleString('en')} spans/s of CPU time (${r.cpuSecs.toFixed(2)} s user+system, all threads, GC included)`);
    console.log(`file size: ${(size / 1e6).toFixed(1)} MB   peak RSS: ${(r.peak / 1e6).toFixed(1)} MB (at start: ${(r.baseRss / 1e6).toFixed(1)} MB)`);
    console.log(`peak RSS / file size: ${(r.peak / size).toFixed(3)}   target < 2: ${r.peak < 2 * size ? 'met' : 'NOT met'}`);
    if (!args['no-store']) {
      const store = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--ingest-store', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      if (store.status !== 0) throw new Error(`ingest-into-store process failed (${store.status})`);
      const k = JSON.parse(store.stdout.trim().split('\n').pop());
      console.log(`mce ingest into SQLite: ${k.sessions.toLocaleString('en')} sessions (${k.stored.toLocaleString('en')} stored), ${Math.round(spans / k.secs).toLocaleString('en')} spans/s (${k.secs.toFixed(1)} s)`);
      console.log(`  peak RSS: ${(k.peak / 1e6).toFixed(1)} MB   target < 500 MB: ${k.peak < 500e6 ? 'met' : 'NOT met'}   (file ${(size / 1e6).toFixed(1)} MB, ratio ${(k.peak / size).toFixed(3)})`);
    }
    if (!args['no-compute']) {
      const c = timedProcess([process.execPath, ...shebangFlags(MCE_BIN), MCE_BIN, 'compute', '--input', file, '--no-store'], dir);
      const sessions = Math.min(SESSIONS, Math.ceil(spans / PER_SESSION));
      console.log(`mce compute --input --no-store: ${sessions.toLocaleString('en')} sessions in ${c.secs.toFixed(1)} s (${Math.round(sessions / c.secs).toLocaleString('en')} sessions/s, CPU ${c.cpu.toFixed(1)} s)`);
      console.log(`  peak RSS: ${(c.peak / 1e6).toFixed(1)} MB   (file ${(size / 1e6).toFixed(1)} MB, ratio ${(c.peak / size).toFixed(3)})`);
    }
  } finally {
    if (!args.keep) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${file}`);
  }
}
