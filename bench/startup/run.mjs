#!/usr/bin/env node
/**
 * Start-up benchmark: the wall time of whole `mce` processes against a bare `node -e 0` measured in the same run,
 * taking turns (one of each per round) so that a change in the machine's speed hits every command alike. Prints the
 * median and best of each, and the median's ratio to the bare Node's median. Targets (the package family issue):
 * `mce --version` ≤ 2×, `mce metric list` ≤ 3×, `mce compute --input <one small session> --no-store` ≤ 5×.
 * `--worker` adds `mce-worker` from its start to its "worker started" log line (connected to RabbitMQ: MCE_AMQP_URL,
 * default the local broker; a queue of its own, deleted at the end), stopped by SIGTERM.
 *
 *   npm run build && node bench/startup/run.mjs [--rounds 15] [--worker]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { machineLine } from '../lib/machine.mjs';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, worker: { type: 'boolean', default: false } } });
const rounds = Number(args.rounds);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mce = join(repo, 'packages/client/bin/mce.js');
const mceWorker = join(repo, 'packages/worker/bin/mce-worker.js');
const session = join(repo, 'examples/sessions/single-agent-tool.json');
// A working directory of its own: no mce_config.yaml, a store and cache nobody else uses.
const dir = mkdtempSync(join(tmpdir(), 'mce-startup-'));
const env = { ...process.env, MCE_STORE_URL: `sqlite:${join(dir, 'mce.db')}`, MCE_METRIC_CACHE: 'none', MCE_CONFIG_HOME: join(dir, 'home') };

const commands = [
  { name: 'node -e 0', argv: ['-e', '0'], target: undefined },
  { name: 'mce --version', argv: [mce, '--version'], target: 2 },
  { name: 'mce metric list', argv: [mce, 'metric', 'list'], target: 3 },
  { name: 'mce compute --input <1 session> --no-store', argv: [mce, 'compute', '--input', session, '--no-store'], target: 5 },
  ...(args.worker ? [{ name: 'mce-worker until "worker started"', argv: [mceWorker], target: undefined, untilLine: '"msg":"worker started"' }] : []),
];

function timeOnce(argv) {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, argv, { cwd: dir, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

const amqp = process.env.MCE_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const workerQueue = `mce-startup-bench-${process.pid}`;
/** A long-running command: the time until it prints `line`; then SIGTERM, and it must exit 0. */
function timeUntil(argv, line) {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, argv, { cwd: dir, env: { ...env, MCE_AMQP_URL: amqp, MCE_WORKER_QUEUE: workerQueue } });
  let output = '';
  let ms;
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      if (ms !== undefined || !output.includes(line)) return;
      ms = Number(process.hrtime.bigint() - start) / 1e6;
      child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => (ms !== undefined && code === 0 ? resolve(ms) : reject(new Error(`${argv.join(' ')} exited ${code}: ${output}`))));
  });
}

const timeCommand = (c) => (c.untilLine ? timeUntil(c.argv, c.untilLine) : timeOnce(c.argv));

console.log(machineLine());
const times = commands.map(() => []);
for (const c of commands) await timeCommand(c); // warm the file cache
for (let r = 0; r < rounds; r++) for (const [i, c] of commands.entries()) times[i].push(await timeCommand(c));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const floor = median(times[0]);
console.log(`${rounds} rounds, taking turns`);
for (const [i, c] of commands.entries()) {
  const m = median(times[i]);
  const ratio = m / floor;
  const verdict = c.target === undefined ? '' : `  target ≤ ${c.target}× ${ratio <= c.target ? 'met' : 'MISSED'}`;
  console.log(`${c.name.padEnd(44)} median ${m.toFixed(0).padStart(5)} ms  best ${Math.min(...times[i]).toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}×${verdict}`);
}

if (args.worker) {
  // The queues the worker declared (main, retry, dead letters): nothing else uses them.
  const { Connection } = await import('rabbitmq-client');
  const connection = new Connection(amqp);
  const { queueNames } = await import('@mce/worker');
  for (const queue of Object.values(queueNames(workerQueue))) await connection.queueDelete({ queue });
  await connection.close();
}
