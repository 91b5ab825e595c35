/**
 * `mce receive` as a process: SIGTERM with spans buffered stores them and evaluates the open session before it exits;
 * `mce export --otlp` sends the stored results to an OTLP endpoint. Runs the built CLI (npm run build first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultMceConfig } from '../../src/config/index.js';
import { encodeTraceRequest } from '../../../ingest/src/otlp-protobuf.js';
import { MCEClient } from '../../src/mce-client.js';
import { openStore } from '../../../store/src/index.js';
import { runCli } from '../cli/run-cli.js';
import { dataFile } from '../../../ingest/test/helpers.js';
import { TRACE_ID } from '../../../ingest/test/multi-agent-scenario.js';
import { LogSink } from './log-sink.js';

const ws = mkdtempSync(join(tmpdir(), 'mce-receive-cli-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, MCE_STORE_URL: `sqlite:${join(ws, 'mce.db')}`, MCE_METRIC_CACHE: 'none', MCE_CONFIG_HOME: join(ws, 'home'), MCE_RECEIVER_SESSION_IDLE_MS: '600000' };
const LINES = readFileSync(dataFile('multi-agent/genai.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('mce receive', () => {
  it('SIGTERM with spans buffered: they are stored (the trace as a session of its own), its session evaluated, then the process exits 0', async () => {
    const bin = fileURLToPath(new URL('../../bin/mce.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'receive', '--port', '0'], { env, cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const port = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)\/v1\/traces/.exec(stderr);
        if (listening) resolve(listening[1]!);
      });
      void exited.then(() => reject(new Error(`mce receive exited: ${stderr}`)));
    });
    // Four spans of the scenario, its root (with the session id) not among them: held, waiting for it.
    for (const line of LINES.slice(0, 4)) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/traces`, { method: 'POST', body: encodeTraceRequest(line), headers: { 'content-type': 'application/x-protobuf' } });
      expect(res.status).toBe(200);
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('mce receiver stopped: 4 buffered span(s) stored, 1 open session(s) evaluated\n');
    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(env.MCE_STORE_URL), cache: false });
    try {
      const session = await client.store.getSession(TRACE_ID);
      expect(session?.llmCalls.length).toBe(2); // the first four spans to end: two LLM calls, an agent, an MCP listing
      expect((await client.getMetrics(TRACE_ID)).find((r) => r.name === 'Duration')).toBeDefined();
    } finally {
      await client.store.close();
      await client.close();
    }
  }, 30_000);

  it('mce export --otlp sends the stored results as gen_ai.evaluation.result records', async () => {
    const sink = await new LogSink().start();
    try {
      const run = await runCli(['export', '--otlp', TRACE_ID, '--endpoint', sink.url], { dir: ws, env });
      expect(run.code, run.stderr).toBe(0);
      const count = Number(/exported (\d+) result\(s\) of 1 session\(s\)/.exec(run.stdout)?.[1]);
      expect(count).toBeGreaterThan(0);
      expect(sink.records).toHaveLength(count);
      expect(new Set(sink.records.map((r) => [r.eventName, r.traceId].join(' ')))).toEqual(new Set([`gen_ai.evaluation.result ${TRACE_ID}`]));
      const closed = await runCli(['export', '--otlp', TRACE_ID, '--endpoint', 'http://127.0.0.1:9/v1/logs'], { dir: ws, env });
      expect(closed.code).not.toBe(0);
      expect(closed.stderr).toMatch(/evaluation record\(s\) could not be sent to http:\/\/127\.0\.0\.1:9\/v1\/logs/);
    } finally {
      await sink.close();
    }
  }, 60_000);
});
