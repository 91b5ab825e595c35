/**
 * The legacy commands: `mce-cli compute / health / list-metrics` in process against the legacy routes on loopback,
 * and `mce-server` started as users start it (the built bin, so `mce serve` loads @mce/legacy on demand), from the old
 * engine's environment. The compute request is examples/service_test.py's (agntcy/telemetry-hub at 8e27775,
 * metrics_computation_engine/src/metrics_computation_engine/examples/service_test.py), with the fixture's window.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MCEClient } from '@mce/client';
import { legacyCli, serverInvocation } from '../src/index.js';
import { closeClient, openClientWith, serveLegacy, type Served } from './support.js';

function io(cwd: string, env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  return {
    io: { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env, cwd },
    out: () => stdout,
    err: () => stderr,
  };
}

const REQUEST = {
  metrics: ['AgentToToolInteractions', 'Cycles'],
  data_fetching_infos: { batch_config: { time_range: { start: '2000-06-20T15:04:05Z', end: '2040-06-29T08:52:55Z' } } },
};

describe('mce-cli', () => {
  let client: MCEClient;
  let server: Served;
  let dir: string;
  beforeAll(async () => {
    ({ client } = await openClientWith(['langgraph_supervisor_research.json']));
    server = await serveLegacy(client);
    dir = mkdtempSync(join(tmpdir(), 'mce-cli-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(REQUEST));
  });
  afterAll(async () => {
    await server.close();
    await closeClient(client);
  });

  it('compute CONFIG.json -o writes the answer; without -o prints a summary', async () => {
    const toFile = io(dir);
    expect(await legacyCli(['compute', 'config.json', '--server-url', server.url, '-o', 'out.json'], toFile.io)).toBe(0);
    expect(toFile.out()).toContain('✅ Metrics computation completed successfully!\nComputed 2 metrics\nResults saved to: out.json\n');
    const saved = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
    expect(saved.metrics).toEqual(['AgentToToolInteractions', 'Cycles']);
    expect(saved.results.session_metrics.map((r: { metric_name: string; value: unknown }) => [r.metric_name, r.value])).toEqual([
      ['AgentToToolInteractions', { '(Agent: research) -> (Tool: tavily_search_results_json)': 1 }],
      ['Cycles', 0],
    ]);
    const printed = io(dir);
    expect(await legacyCli(['compute', 'config.json', '--server-url', server.url], printed.io)).toBe(0);
    expect(printed.out()).toContain(
      '  session_metrics: 2\n' +
        '    AgentToToolInteractions ["multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606"]: {"(Agent: research) -> (Tool: tavily_search_results_json)":1}\n' +
        '    Cycles ["multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606"]: 0\n',
    );
  });

  it('compute fails with the old messages: a missing file, a 400, no server', async () => {
    const missing = io(dir);
    expect(await legacyCli(['compute', 'nope.json', '--server-url', server.url], missing.io)).toBe(1);
    expect(missing.err()).toBe('❌ Configuration file not found: nope.json\n');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ data_fetching_infos: { session_ids: [], batch_config: {} } }));
    const refused = io(dir);
    expect(await legacyCli(['compute', 'bad.json', '--server-url', server.url], refused.io)).toBe(1);
    expect(refused.err()).toBe('❌ Error: Server returned status 400\nResponse: {"detail":"Invalid request configuration."}\n');
    const down = io(dir);
    expect(await legacyCli(['compute', 'config.json', '--server-url', 'http://127.0.0.1:9'], down.io)).toBe(1);
    expect(down.err()).toMatch(/^❌ Cannot connect to server at http:\/\/127\.0\.0\.1:9\. Make sure the server is running\./);
  });

  it('health asks GET /health', async () => {
    const ok = io(dir);
    expect(await legacyCli(['health', '--server-url', server.url], ok.io)).toBe(0);
    expect(ok.out()).toMatch(/^✅ Server is healthy\n\{"status":"healthy","service":"metrics_computation_engine"/);
  });

  it('list-metrics prints the legacy listing of the local configuration, opening no store', async () => {
    const listed = io(dir, { MCE_STORE_URL: `sqlite:${join(dir, 'list.db')}`, MCE_CONFIG_HOME: join(dir, 'home') });
    expect(await legacyCli(['list-metrics'], listed.io)).toBe(0);
    expect(existsSync(join(dir, 'list.db'))).toBe(false);
    expect(listed.out()).toMatch(/^Available metrics \(\d+ total\):\n\nNative metrics \(\d+\):\n/);
    expect(listed.out()).toContain('  • Cycles [session, agent] - ');
    expect(listed.out()).toContain('\nPlugin metrics (');
  });

  it('a usage error is exit 2', async () => {
    const bad = io(dir);
    expect(await legacyCli(['compute'], bad.io)).toBe(2);
    expect(bad.err()).toContain("missing required argument 'config_file'");
  });
});

describe('mce-server', () => {
  it('maps the old environment: HOST / PORT, the judge variables, and names the ignored ones', () => {
    const env = { HOST: '127.0.0.1', PORT: '9100', LLM_API_KEY: 'sk-test', LLM_BASE_MODEL_URL: 'http://127.0.0.1:9/v1', NUM_LLM_RETRIES: '5', METRICS_CACHE_ENABLED: 'yes', RELOAD: 'true', MOCK_LLM_PROXY_PORT: '8010' };
    expect(serverInvocation(env)).toEqual({
      argv: ['serve', '--host', '127.0.0.1', '--port', '9100'],
      mapped: { LLM_BASE_MODEL_URL_MCE: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-test', MCE_JUDGE_MAX_RETRIES: '5', MCE_METRIC_CACHE: 'true' },
      ignored: ['MOCK_LLM_PROXY_PORT is ignored: mce has no mock LLM proxy (tests use a scripted OpenAI-compatible server)', 'RELOAD is ignored: mce does not reload its code'],
    });
    // An mce variable already set wins over its old name.
    expect(serverInvocation({ LLM_API_KEY: 'old', OPENAI_API_KEY: 'new' }).mapped).toEqual({});
    expect(() => serverInvocation({ SESSIONS_TRACES_MAX: 'many' })).toThrow('SESSIONS_TRACES_MAX must be a positive integer (got "many")');
    expect(() => serverInvocation({ API_BASE_URL: 'localhost:8080' })).toThrow('API_BASE_URL must be an http(s) URL (got "localhost:8080")');
  });

  it('starts mce serve with the legacy routes mounted, and mce-cli health finds it', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'mce-server-'));
    // WORKERS comes from the working directory's .env, as the old server read it.
    writeFileSync(join(ws, '.env'), 'WORKERS=2\n');
    const env = { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', MCE_STORE_URL: `sqlite:${join(ws, 'mce.db')}`, MCE_METRIC_CACHE: 'false', MCE_CONFIG_HOME: join(ws, 'home'), MODEL_PRICES_REFRESH: 'false' };
    const bin = fileURLToPath(new URL('../bin/mce-server.js', import.meta.url));
    const child = spawn(process.execPath, [bin], { env, cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const port = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          // The notices follow the listening line: wait for the last of them.
          const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)[^\n]*\n(?:.*\n)*mce: WORKERS is ignored[^\n]*\n/.exec(stderr);
          if (listening) resolve(listening[1]!);
        });
        void exited.then(() => reject(new Error(`mce-server exited: ${stderr}`)));
      });
      expect(stderr).toContain('mce: telemetry-hub routes (POST /compute_metrics, GET /metrics, /status, /health) read sessions from the configured store\n');
      expect(stderr).toContain('mce: WORKERS is ignored: one process serves; computations run in a worker thread of their own\n');
      const health = io(ws);
      expect(await legacyCli(['health', '--server-url', `http://127.0.0.1:${port}`], health.io)).toBe(0);
      // The mce API is served beside the legacy routes.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  });

  it('the bundled mce serve mounts the same routes when @mce/legacy is installed', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'mce-serve-'));
    const env = { PATH: process.env.PATH, MCE_STORE_URL: `sqlite:${join(ws, 'mce.db')}`, MCE_METRIC_CACHE: 'false', MCE_CONFIG_HOME: join(ws, 'home'), MODEL_PRICES_REFRESH: 'false' };
    const bin = fileURLToPath(new URL('../../client/bin/mce.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env, cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const port = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)[^\n]*\n(?:.*\n)*mce: telemetry-hub routes/.exec(stderr);
          if (listening) resolve(listening[1]!);
        });
        void exited.then(() => reject(new Error(`mce serve exited: ${stderr}`)));
      });
      const status = (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as { service: string };
      expect(status.service).toBe('metrics_computation_engine');
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  });

  it('beyond loopback without an API key it refuses, as mce serve does', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'mce-server-'));
    const bin = fileURLToPath(new URL('../bin/mce-server.js', import.meta.url));
    const env = { PATH: process.env.PATH, HOST: '0.0.0.0', PORT: '0', MCE_STORE_URL: `sqlite:${join(ws, 'mce.db')}`, MCE_CONFIG_HOME: join(ws, 'home'), MODEL_PRICES_REFRESH: 'false' };
    const child = spawn(process.execPath, [bin], { env, cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect([code, stderr]).toEqual([2, expect.stringContaining('refusing to serve on 0.0.0.0, beyond loopback')]);
  });
});
