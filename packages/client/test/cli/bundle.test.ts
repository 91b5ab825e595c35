/**
 * The `mce` command as users start it (bin/mce.js) runs the bundled CLI (scripts/bundle-cli.mjs, rebuilt before the
 * tests when stale): every module of mce's own comes from the bundle, the libraries a command does not need are not
 * loaded, files of the bundled packages (the OTLP .proto files, the price table) are found where those packages are,
 * and the packages loaded on demand (the store adapters) still come from their own package. Each run records the
 * files its process loaded (ES modules through a loader hook, CommonJS through require.cache at exit).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeTraceRequest } from '../../../ingest/src/otlp-protobuf.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(repo, 'packages/client/bin/mce.js');
const dir = mkdtempSync(join(tmpdir(), 'mce-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RECORDER = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const log = process.env.MCE_TEST_MODULE_LOG;
register('data:text/javascript,' + encodeURIComponent(
  "import { appendFileSync } from 'node:fs';" +
  'export async function load(url, context, next) { appendFileSync(' + JSON.stringify(log) + ', url + "\\\\n"); return next(url, context); }'));
process.on('exit', () => appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).map((f) => f + '\\n').join('')));
`;
const recorder = join(dir, 'recorder.mjs');
writeFileSync(recorder, RECORDER);

let runs = 0;
/** Runs `mce argv` in an empty directory; the files it loaded, as repo-relative paths (node_modules/… for libraries). */
function mce(argv: string[]) {
  const log = join(dir, `modules-${++runs}.txt`);
  writeFileSync(log, '');
  const env = { ...process.env, MCE_TEST_MODULE_LOG: log, MCE_STORE_URL: `sqlite:${join(dir, `${runs}.db`)}`, MCE_METRIC_CACHE: 'none', MCE_CONFIG_HOME: join(dir, 'home') };
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(recorder).href, bin, ...argv], { cwd: dir, env, encoding: 'utf8' });
  const loaded = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('node:') && !line.startsWith('data:'))
    .map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line))
    .map((file) => file.replace(repo, '').replace(/^.*node_modules\//, 'node_modules/'));
  return { ...run, loaded: [...new Set(loaded)] };
}

/** The package a loaded library file belongs to (node_modules/@scope/name or node_modules/name). */
const libraries = (loaded: string[]) => new Set(loaded.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/').slice(1, f.startsWith('node_modules/@') ? 3 : 2).join('/')));
/** The code files of mce's own packages it loaded (data files such as JSON schemas are read where they are). */
const ownFiles = (loaded: string[]) => loaded.filter((f) => f.startsWith('packages/') && /\.[cm]?js$/.test(f));

describe('the bundled mce command', () => {
  it('is built, and the bin runs it', () => {
    expect(existsSync(join(repo, 'packages/client/dist/bundle/main.js'))).toBe(true);
  });

  it('metric list: mce code only from the bundle, and none of the libraries it does not use', () => {
    const run = mce(['metric', 'list', '--json']);
    expect(run.status, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { name: string }[]).map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(['Duration', 'TotalTokens', 'ToolErrorRate']));
    const own = ownFiles(run.loaded);
    expect(own).toContain('packages/client/bin/mce.js');
    // The client's own code comes only from the bundle. Provider packages found by discovery load from their own
    // packages, with the core and provider-native they import (a start-up cost still to cut: see docs/architecture.md).
    const outside = own.filter((f) => f !== 'packages/client/bin/mce.js' && !f.startsWith('packages/client/dist/bundle/'));
    expect(outside.filter((f) => f.startsWith('packages/client/'))).toEqual([]);
    expect([...new Set(outside.map((f) => f.split('/')[1]))].sort()).toEqual(['core', 'provider-deepeval', 'provider-native', 'provider-opik', 'provider-ragas', 'provider-sdk']);
    const libs = libraries(run.loaded);
    // zod now comes with the discovered providers' own copy of core (see above), so it is not checked here.
    for (const lazy of ['ajv', 'ajv-formats', 'protobufjs', 'yaml', 'pino', 'openai', 'better-sqlite3', 'pg', 'neo4j-driver', 'hono']) expect(libs, lazy).not.toContain(lazy);
  });

  it('compute reads an OTLP protobuf file: the .proto files are found in @mce/ingest', () => {
    const json = JSON.parse(readFileSync(join(repo, 'packages/ingest/test/data/fixtures/otlp-dialects/raw.json'), 'utf8')) as Record<string, unknown>;
    const pb = join(dir, 'raw.pb');
    writeFileSync(pb, encodeTraceRequest(json));
    const run = mce(['compute', '--input', pb, '--no-store', '--json', '--metrics', 'Duration']);
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { sessions: { sessionId: string; results: { name: string; result: number }[] }[] };
    expect(out.sessions.map((s) => s.sessionId)).toEqual(['053074667b1113278073667614bb3e19']);
    expect(out.sessions[0]?.results.find((r) => r.name === 'Duration')?.result).toBeCloseTo(19.719, 3);
    expect(libraries(run.loaded)).toContain('protobufjs');
    expect(run.loaded.filter((f) => f.endsWith('.proto'))).toEqual([]); // read with fs by protobufjs, not imported
  });

  it('a PostgreSQL URL loads @mce/store-postgres from its own package, outside the bundle', () => {
    const run = mce(['--store-url', 'postgres://nobody@127.0.0.1:1/none', 'sessions', 'list']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot open the store postgres:\/\/nobody@127\.0\.0\.1:1\/none: .*ECONNREFUSED/);
    expect(ownFiles(run.loaded)).toContain('packages/store-postgres/dist/index.js');
    expect(libraries(run.loaded)).toContain('pg');
  });
});
