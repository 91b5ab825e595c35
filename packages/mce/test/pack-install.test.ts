/**
 * What would be published works as a user installs it: every package is packed once (`npm pack --workspaces`) and
 * that one set of tarballs is checked and installed into empty projects with registry dependencies only.
 *  - package hygiene of the tarballs (scripts/check-packages.mjs: manifests, contents, publint, attw);
 *  - the whole product (`mce` and its packages) plus a third-party provider written only against @mce/helper:
 *    `mce --version`, `mce metric list`, the README demo on SQLite, the provider discovered and computed;
 *  - an ESM and a CommonJS TypeScript project type-checking against the published types (misuse is an error, so the
 *    types are not `any`), and the CommonJS one run;
 *  - `@mce/client` with `@mce/store-postgres` and no SQLite at all: a compute into PostgreSQL, and a clear message
 *    naming the package to install for the stores it lacks.
 * Each step prints its seconds. Needs the package registry (dependencies such as zod and pg come from it): the
 * installs are skipped with a message when it cannot be reached, a failure under CI=true. Slow (better-sqlite3 is
 * compiled by the first install): minutes, not seconds.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { AMQP_URL, PG_URL } from '../../../test-support/services.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['core', 'helper', 'provider-native', 'provider-ragas', 'provider-deepeval', 'provider-opik', 'provider-sdk', 'ingest', 'store', 'store-postgres', 'store-neo4j', 'client', 'worker', 'legacy', 'mce'];
const MINUTES = 60_000;
/** Each package's version as packed (changesets moves them independently). */
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(repo, 'packages', pkg, 'package.json'), 'utf8')) as { version: string }).version;
const TYPES_NODE = '@types/node@20.19.43';

/** Runs a step and prints how long it took: the suite's cost is watched. */
async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    console.log(`pack-install: ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

/** A fresh project that allows better-sqlite3's build (npm asks projects to allow install scripts by name). */
function project(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mce-${name}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `try-${name}`, private: true, allowScripts: { 'better-sqlite3': true } }));
  return dir;
}

/** What the package's metrics are, so that mce lists them without importing it (`mce provider catalog` prints it). */
const CALLCOUNT_CATALOG = {
  providers: [{
    name: 'callcount', description: 'Counts the calls of a session', // its version is the package's
    metrics: [{ name: 'CallCount', levels: ['Session'], nature: 'deterministic', unit: 'count', valueRange: 'non-negative integer', description: 'LLM and tool calls in the session' }],
  }],
};

/**
 * A provider package as a third party writes it: @mce/helper only, declared by the package.json `mce` field with its
 * catalogue.
 */
function thirdPartyProvider(into: string): string {
  const dir = join(into, 'mce-callcount');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'mce-callcount', version: '1.2.3', type: 'module', main: 'index.js', mce: { provider: true, catalog: CALLCOUNT_CATALOG }, dependencies: { '@mce/helper': `^${versionOf('helper')}` } }),
  );
  writeFileSync(
    join(dir, 'index.js'),
    `import { defineMetric, defineProvider, skip } from '@mce/helper';
export default defineProvider({
  name: 'callcount', version: '1.2.3', description: 'Counts the calls of a session',
  metrics: [defineMetric({
    name: 'CallCount', levels: ['Session'], unit: 'count', valueRange: 'non-negative integer',
    description: 'LLM and tool calls in the session',
    compute: (s) => (s.llmCalls.length + s.toolCalls.length === 0 ? skip('no calls') : { value: s.llmCalls.length + s.toolCalls.length, reasoning: 'counted' }),
  })],
});
`,
  );
  return dir;
}

const tarballs = (dir: string, names: string[]) => names.map((n) => join(dir, n === 'mce' ? `mce-${versionOf(n)}.tgz` : `mce-${n}-${versionOf(n)}.tgz`));

const TSC = join(repo, 'node_modules/typescript/bin/tsc');

/** The metric every consumer defines, as in a user's code. */
const PROVIDER_SOURCE = `export const provider = defineProvider({
  name: 'callcount', version: '1.0.0', description: 'Counts the calls of a session',
  metrics: [defineMetric({
    name: 'CallCount', levels: ['Session'], unit: 'count', valueRange: 'non-negative integer',
    description: 'LLM and tool calls in the session',
    compute: (_element, { session: s }) => (s.llmCalls.length + s.toolCalls.length === 0 ? skip('no calls') : { value: s.llmCalls.length + s.toolCalls.length, reasoning: 'counted' }),
  })],
});
`;

/** An ES-module consumer: the client, the store, the ontology types, the errors subpath. Misuse must not compile. */
const ESM_CONSUMER = `import { MCEClient } from '@mce/client';
import type { Session } from '@mce/core';
import { MceError } from '@mce/core/errors';
import { defineMetric, defineProvider, skip } from '@mce/helper';
import { openStore, type KnowledgeGraphStore } from '@mce/store';

${PROVIDER_SOURCE}
export async function resultCount(sessionId: string): Promise<number> {
  const client = await MCEClient.open();
  try {
    const [computed] = await client.computeAndStore(sessionId);
    return (computed?.results.length ?? 0) + (computed?.failed.length ?? 0);
  } finally {
    await client.close();
  }
}
export const firstModel = (session: Session): string | undefined => session.llmCalls[0]?.requestModel;
export const isMceError = (error: unknown): error is MceError => error instanceof MceError;
export const open = (url: string): Promise<KnowledgeGraphStore> => openStore(url);
// Wrong uses are errors (were the types \`any\`, these directives would be unused, and that is an error too).
// @ts-expect-error a session id is a string
export const wrongId = async (client: MCEClient) => client.computeAndStore(42);
// @ts-expect-error a metric has a name
export const wrongMetric = defineMetric({ levels: ['Session'], compute: () => ({ value: 1 }) });
`;

/** A CommonJS consumer: its imports become require() calls. */
const CJS_CONSUMER = `import { MCEClient } from '@mce/client';
import { MceError } from '@mce/core/errors';
import { defineMetric, defineProvider, skip } from '@mce/helper';

${PROVIDER_SOURCE}
// @ts-expect-error a provider has a name
export const wrongProvider = defineProvider({ version: '1', metrics: [] });
console.log(JSON.stringify({ provider: provider.name, metrics: provider.metrics().map((m) => m.metadata.name), mceError: typeof MceError, client: typeof MCEClient.open }));
`;

/** A TypeScript project inside the product's project (its node_modules resolve from there). */
function consumer(into: string, name: string, type: 'module' | 'commonjs', options: Record<string, unknown>, source: string): string {
  const dir = join(into, `consumer-${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type }));
  const compilerOptions = { target: 'es2022', strict: true, skipLibCheck: false, types: ['node'], ...options };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts'] }));
  writeFileSync(join(dir, 'index.ts'), source);
  return dir;
}

const DOCKERFILE = readFileSync(join(repo, 'packages/worker/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');

/** The install stage's tarball globs (`COPY mce-core-*.tgz … ./`), each matched in the pack directory. */
function imageTarballs(dir: string): string[] {
  const copy = /^COPY ((?:mce-\S+\.tgz )+)\.\/$/m.exec(DOCKERFILE);
  expect(copy, 'the Dockerfile copies the tarballs').not.toBeNull();
  const names = readdirSync(dir);
  return (copy?.[1] ?? '').trim().split(/\s+/).flatMap((glob) => {
    const pattern = new RegExp(`^${glob.replace(/[.+]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    const matched = names.filter((n) => pattern.test(n));
    expect(matched, `${glob} matches a tarball`).not.toEqual([]);
    return matched.map((n) => join(dir, n));
  });
}

/** The HEALTHCHECK's command, as the image runs it. */
function healthcheck(): string[] {
  const command = /^HEALTHCHECK .*? CMD (\[.*\])\s*$/m.exec(DOCKERFILE);
  expect(command, 'the Dockerfile has a HEALTHCHECK CMD').not.toBeNull();
  return JSON.parse(command?.[1] ?? '[]') as string[];
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let packs = '';
let reachable = true;
/** The project the whole product is installed in (the first test), reused by the TypeScript consumers. */
let product = '';

beforeAll(async () => {
  // npm test has built every package (typecheck is tsc -b); a run of this file alone builds first.
  if (!existsSync(join(repo, 'packages/client/dist/cli/main.js'))) expect((await sh('npm', ['run', 'build'], repo)).code).toBe(0);
  packs = mkdtempSync(join(tmpdir(), 'mce-packs-'));
  const packed = await timed('npm pack --workspaces', () => sh('npm', ['pack', '--workspaces', '--pack-destination', packs], repo));
  expect(packed.code, packed.stderr).toBe(0);
  expect(readdirSync(packs).sort()).toEqual(tarballs(packs, PACKAGES).map((t) => t.slice(packs.length + 1)).sort());

  const probe = await sh('npm', ['view', 'zod', 'version'], repo);
  if (probe.code !== 0) {
    const message = `pack-install: the package registry cannot be reached (${probe.stderr.trim().split('\n')[0]}): installs skipped`;
    if (process.env.CI === 'true') throw new Error(`${message} (not allowed under CI=true)`);
    console.warn(message);
    reachable = false;
  }
}, 5 * MINUTES);

describe('packed and installed as a user would', () => {
  it('the tarballs pass the package hygiene check: manifests, allow-listed contents, publint, attw', async () => {
    const checked = await timed('check-packages on the tarballs', () => sh(process.execPath, [join(repo, 'scripts/check-packages.mjs'), '--tarballs', packs], repo));
    expect(checked.stderr).toBe('');
    expect(checked.stdout).toContain(`check-packages: ${PACKAGES.length} packages: manifests, contents, publint and attw clean`);
    expect(checked.code).toBe(0);
  }, 5 * MINUTES);

  it('the whole product: --version, metric list, the README demo on SQLite, and a helper-only provider found without config', async (ctx) => {
    if (!reachable) return ctx.skip();
    const dir = project('all');
    const provider = await sh('npm', ['pack', '--pack-destination', packs], thirdPartyProvider(mkdtempSync(join(tmpdir(), 'mce-3p-'))));
    expect(provider.code, provider.stderr).toBe(0);
    // @types/node for the TypeScript consumers below, as a TypeScript user has it.
    const installed = await timed('npm install (the whole product)', () =>
      sh('npm', ['install', '--no-audit', '--no-fund', ...tarballs(packs, PACKAGES), join(packs, 'mce-callcount-1.2.3.tgz'), TYPES_NODE], dir),
    );
    expect(installed.code, installed.stderr).toBe(0);
    product = dir;
    const mce = (...args: string[]) => sh(join(dir, 'node_modules/.bin/mce'), args, dir);
    const started = performance.now();

    expect((await mce('--version')).stdout.trim()).toBe(versionOf('client'));
    // The command's bundled CLI was packed, so the bin runs it rather than the modules of dist/ one by one.
    expect(existsSync(join(dir, 'node_modules/@mce/client/dist/bundle/main.js'))).toBe(true);
    const metrics = JSON.parse((await mce('metric', 'list', '--all', '--json')).stdout) as { name: string; provider: string }[];
    expect(metrics.map((m) => `${m.provider}:${m.name}`)).toEqual(expect.arrayContaining(['mce:Duration', 'mce:CyclesCount', 'callcount:CallCount']));
    const providers = JSON.parse((await mce('provider', 'list', '--json')).stdout) as { name: string; version: string; origin: { kind: string; package?: string } }[];
    expect(providers.map((p) => [p.name, p.origin.kind, p.origin.package]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['callcount', 'discovered', 'mce-callcount'],
      ['deepeval', 'discovered', '@mce/provider-deepeval'],
      ['mce', 'built-in', undefined],
      ['opik', 'discovered', '@mce/provider-opik'],
      ['ragas', 'discovered', '@mce/provider-ragas'],
      ['sdk', 'discovered', '@mce/provider-sdk'],
    ]);
    expect(providers.find((p) => p.name === 'callcount')?.version).toBe('1.2.3');
    // The catalogue the package declares is the one its code gives (requirements and dependsOn filled in).
    const catalog = await mce('provider', 'catalog', 'node_modules/mce-callcount');
    expect(JSON.parse(catalog.stdout)).toEqual({ providers: [{ ...CALLCOUNT_CATALOG.providers[0], metrics: [{ ...CALLCOUNT_CATALOG.providers[0]?.metrics[0], requirements: [], dependsOn: [] }] }] });

    // The README's demo, in the project.
    cpSync(join(repo, 'examples'), join(dir, 'examples'), { recursive: true });
    const ingest = await mce('ingest', 'examples/traces', 'examples/sessions');
    expect(ingest.code, ingest.stderr).toBe(0);
    const computed = await mce('compute', '--all', '--json');
    expect(computed.code, computed.stderr).toBe(0);
    const sessions = (JSON.parse(computed.stdout) as { sessions: { sessionId: string; results: { provider: string; name: string; level: string; result: number }[] }[] }).sessions;
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(['dev-assistant-55', 'support-7781', 'trip-2026-001', 'weather-001']);
    expect(sessions.find((s) => s.sessionId === 'weather-001')?.results.find((r) => r.name === 'Duration' && r.level === 'Session')?.result).toBe(4200);
    // The discovered metric, named as any other (no configuration entry).
    const discovered = await mce('compute', 'weather-001', '--metrics', 'Duration,callcount:CallCount', '--json');
    expect(discovered.code, discovered.stderr).toBe(0);
    const [weather] = (JSON.parse(discovered.stdout) as { sessions: { results: { provider: string; name: string; level: string; result: number }[] }[] }).sessions;
    expect(weather?.results.filter((r) => r.level === 'Session').map((r) => [r.provider, r.name, r.result])).toEqual([
      ['mce', 'Duration', 4200],
      ['callcount', 'CallCount', 3],
    ]);
    expect((await mce('sessions', 'list')).stdout).toContain('weather-001');
    // The metapackage's own bin runs the same command.
    expect((await sh(process.execPath, [join(dir, 'node_modules/mce/bin/mce.js'), '--version'], dir)).stdout.trim()).toBe(versionOf('client'));
    console.log(`pack-install: --version, metric list, the demo on SQLite, the discovered provider: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 20 * MINUTES);

  it('an ESM and a CommonJS TypeScript project type-check against the published types; the CommonJS one runs', async (ctx) => {
    if (!reachable) return ctx.skip();
    expect(product, 'the whole product was installed by the test before').not.toBe('');
    const esm = consumer(product, 'esm', 'module', { module: 'nodenext', moduleResolution: 'nodenext', noEmit: true }, ESM_CONSUMER);
    // The declarations themselves are checked once, by the ESM project (skipLibCheck: false there).
    const cjs = consumer(product, 'cjs', 'commonjs', { module: 'node20', moduleResolution: 'node16', outDir: 'out', skipLibCheck: true }, CJS_CONSUMER);
    for (const [name, dir] of [['ESM', esm], ['CommonJS', cjs]] as const) {
      const checked = await timed(`tsc, the ${name} consumer`, () => sh(process.execPath, [TSC, '-p', dir], dir));
      expect(checked.stdout + checked.stderr, `${name} consumer`).toBe('');
      expect(checked.code).toBe(0);
    }
    // Emitted as require() calls of the ES modules, which Node loads synchronously (engines ≥ 20.19).
    expect(readFileSync(join(cjs, 'out/index.js'), 'utf8')).toContain('require("@mce/helper")');
    const ran = await sh(process.execPath, [join(cjs, 'out/index.js')], cjs);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ provider: 'callcount', metrics: ['CallCount'], mceError: 'function', client: 'function' });
  }, 5 * MINUTES);

  it('@mce/client with @mce/store-postgres only: no better-sqlite3, a compute into PostgreSQL, and install hints for the rest', async (ctx) => {
    if (!reachable) return ctx.skip();
    const dir = project('pg');
    // Their @mce dependencies are not on the registry: they come from the tarballs too, but neither mce nor SQLite.
    const installed = await timed('npm install (client and store-postgres)', () =>
      sh('npm', ['install', '--no-audit', '--no-fund', ...tarballs(packs, ['core', 'provider-native', 'ingest', 'store', 'store-postgres', 'client'])], dir),
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(existsSync(join(dir, 'node_modules/better-sqlite3'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/neo4j-driver'))).toBe(false);
    const mce = (...args: string[]) => sh(join(dir, 'node_modules/.bin/mce'), args, dir, { MCE_STORE_URL: '' });

    const started = performance.now();
    const url = `${PG_URL}?schema=pack_install_${process.pid}`;
    const example = join(repo, 'examples/sessions/single-agent-tool.json');
    expect((await mce('--store-url', url, 'ingest', example)).code).toBe(0);
    const computed = await mce('--store-url', url, 'compute', 'weather-001', '--metrics', 'Duration', '--json');
    expect(computed.code, computed.stderr).toBe(0);
    const [session] = (JSON.parse(computed.stdout) as { sessions: { results: { name: string; level: string; result: number }[] }[] }).sessions;
    expect(session?.results.find((r) => r.level === 'Session')?.result).toBe(4200);
    const stored = await mce('--store-url', url, 'kg', 'metric', 'get', 'weather-001', '--metrics', 'Duration', '--json');
    expect(stored.code, stored.stderr).toBe(0);
    const [kept] = (JSON.parse(stored.stdout) as { sessions: { results: { level: string; result: number }[] }[] }).sessions;
    expect(kept?.results.find((r) => r.level === 'Session')?.result).toBe(4200);

    const sqlite = await mce('ingest', example);
    expect([sqlite.code, sqlite.stderr]).toEqual([2, expect.stringContaining('npm install better-sqlite3')]);
    const neo4j = await mce('--store-url', 'neo4j://127.0.0.1:7687', 'sessions', 'list');
    expect([neo4j.code, neo4j.stderr]).toEqual([2, expect.stringContaining('npm install @mce/store-neo4j')]);
    console.log(`pack-install: a compute on PostgreSQL and the install hints: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 10 * MINUTES);

  it("the worker image's recipe outside Docker: its tarballs alone, the price download, mce-worker up and the HEALTHCHECK", async (ctx) => {
    if (!reachable) return ctx.skip();
    const dir = project('worker');
    const installed = await timed("npm install (the worker image's tarballs)", () => sh('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', ...imageTarballs(packs)], dir));
    expect(installed.code, installed.stderr).toBe(0);
    expect(existsSync(join(dir, 'node_modules/better-sqlite3'))).toBe(false);

    // The image's price download, from a LiteLLM stand-in on loopback: the installed table is replaced.
    const download = /^RUN node (node_modules\/\S+update-model-prices\.mjs) (.*)$/m.exec(DOCKERFILE);
    expect(download?.[2]).toBe('--keep-on-failure');
    const table = { 'gpt-4o': { mode: 'chat', litellm_provider: 'openai', input_cost_per_token: 3e-6, output_cost_per_token: 1.2e-5 } };
    const litellm = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(table)));
    await new Promise<void>((resolve) => litellm.listen(0, '127.0.0.1', resolve));
    const pricesUrl = `http://127.0.0.1:${(litellm.address() as AddressInfo).port}/model_prices.json`;
    const prices = await sh(process.execPath, [download?.[1] ?? '', '--keep-on-failure'], dir, { MODEL_PRICES_URL: pricesUrl });
    await new Promise<void>((resolve) => litellm.close(() => resolve()));
    expect(prices.code, prices.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'node_modules/@mce/provider-native/data/model_prices.json'), 'utf8'))).toEqual(table);

    const port = await freePort();
    const [checkCommand = '', ...checkArgs] = healthcheck();
    expect(checkCommand).toBe('node');
    const check = () => sh(process.execPath, checkArgs, dir, { MCE_WORKER_HEALTH_PORT: String(port) });
    const workdir = mkdtempSync(join(tmpdir(), 'mce-worker-run-'));
    const worker = spawn(join(dir, 'node_modules/.bin/mce-worker'), [], {
      cwd: workdir,
      env: { ...process.env, MCE_CONFIG: '', MCE_STORE_URL: `${PG_URL}?schema=pack_install_worker_${process.pid}`, MCE_AMQP_URL: AMQP_URL, MCE_WORKER_QUEUE: `pack_install_${process.pid}`, MCE_WORKER_HEALTH_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    try {
      // Polled until the worker serves /healthz (or has exited): the image's HEALTHCHECK, run as Docker runs it.
      let healthy = await check();
      while (healthy.code !== 0 && worker.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        healthy = await check();
      }
      expect(healthy.code, output).toBe(0);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
    expect((await check()).code).toBe(1);
  }, 10 * MINUTES);
});
