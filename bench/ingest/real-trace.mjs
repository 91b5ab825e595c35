#!/usr/bin/env node
/**
 * Real-trace benchmark: the 126-span ClickHouse fixture (langgraph_llamaindex_linear_5_agents.json, see its README)
 * replicated to about 5,000 spans in one JSON array (each copy a session of its own: new session, trace and span
 * ids), then timed as whole processes, taking turns:
 *   - the floor: `node` reading the file and `JSON.parse`-ing it, nothing else;
 *   - `mce compute --input FILE --no-store` (the configured default metrics, output to /dev/null).
 * Prints the medians, their ratio, and each process's peak RSS against the file size. Targets (the real-world
 * intake issue): compute ≤ 1.5× the floor, peak RSS ≤ 3× the file.
 *
 *   npm run build && node bench/ingest/real-trace.mjs [--spans 5000] [--rounds 5]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { machineLine } from '../lib/machine.mjs';
import { OUT_DIR } from '../lib/session-files.mjs';

const { values: args } = parseArgs({ options: { spans: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '5' } } });
const repo = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(repo, 'packages/client/test/data/fixtures/clickhouse-otel-traces/langgraph_llamaindex_linear_5_agents.json');
const reportRss = join(repo, 'bench/lib/report-rss.mjs');
const mceBin = join(repo, 'packages/client/bin/mce.js');

/** The fixture's rows `copies` times, every id made unique per copy by rewriting the text of each copy. */
function replicated(copies) {
  const text = readFileSync(FIXTURE, 'utf8');
  const rows = JSON.parse(text);
  const ids = new Set(rows.flatMap((r) => [r.TraceId, r.SpanId, r.ParentSpanId]).filter(Boolean));
  const session = rows[0].sessionId.split('_').at(-1); // the uuid after the service name
  const pattern = new RegExp([...ids, session].join('|'), 'g');
  const body = text.trim().slice(1, -1); // the array's elements
  const parts = [];
  for (let c = 0; c < copies; c++) {
    const prefix = c.toString(16).padStart(4, '0');
    parts.push(body.replace(pattern, (id) => `${prefix}${id.slice(4)}`));
  }
  return `[${parts.join(',')}]`;
}

function inputFile(spans) {
  const copies = Math.max(1, Math.round(spans / 126));
  const path = join(OUT_DIR, `clickhouse-linear-x${copies}.json`);
  if (!existsSync(path)) {
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(path, replicated(copies));
  }
  return { path, spans: copies * 126, copies };
}

/** One whole process: wall ms and its peak RSS (reported by the preload). */
function run(argv, env, cwd) {
  const start = process.hrtime.bigint();
  const out = spawnSync(process.execPath, ['--import', reportRss, ...argv], { env, cwd, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (out.status !== 0) throw new Error(`${argv.join(' ')} exited ${out.status}: ${out.stderr.slice(0, 2000)}`);
  const rss = Number(/peak-rss-bytes (\d+)/.exec(out.stderr)?.[1]);
  return { ms, rss };
}

const { path, spans, copies } = inputFile(Number(args.spans));
const bytes = statSync(path).size;
const dir = mkdtempSync(join(tmpdir(), 'mce-real-trace-'));
const env = { ...process.env, MCE_METRIC_CACHE: 'none', MCE_CONFIG_HOME: join(dir, 'home'), MCE_STORE_URL: `sqlite:${join(dir, 'mce.db')}` };
const floorArgv = ['-e', `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(path)}, 'utf8'))`];
// As the bin runs itself (its shebang's flag), from a directory without an mce_config.yaml: the default metrics.
const computeArgv = ['--max-semi-space-size=64', mceBin, 'compute', '--input', path, '--no-store', '--json'];

// Once, untimed: the run reads what it should (every session, every span a call or not) before it is timed.
const check = spawnSync(process.execPath, computeArgv, { env, cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30 });
if (check.status !== 0) throw new Error(`mce compute exited ${check.status}: ${check.stderr.slice(0, 2000)}`);
const sessions = JSON.parse(check.stdout).sessions;
if (sessions.length !== copies) throw new Error(`expected ${copies} sessions, mce computed ${sessions.length}`);

console.log(machineLine());
console.log(`input: ${spans} spans (${copies} sessions of 126), ${(bytes / 1e6).toFixed(1)} MB`);
const rounds = Number(args.rounds);
const floor = [];
const compute = [];
for (let r = 0; r < rounds; r++) {
  floor.push(run(floorArgv, env));
  compute.push(run(computeArgv, env, dir));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const f = median(floor.map((x) => x.ms));
const c = median(compute.map((x) => x.ms));
const rss = median(compute.map((x) => x.rss));
console.log(`JSON.parse floor            median ${f.toFixed(0).padStart(6)} ms  peak RSS ${(median(floor.map((x) => x.rss)) / 1e6).toFixed(0)} MB`);
console.log(`mce compute --no-store      median ${c.toFixed(0).padStart(6)} ms  peak RSS ${(rss / 1e6).toFixed(0)} MB`);
console.log(`ratio ${(c / f).toFixed(2)}× the floor (target ≤ 1.5×); peak RSS ${(rss / bytes).toFixed(2)}× the file (target ≤ 3×)`);
