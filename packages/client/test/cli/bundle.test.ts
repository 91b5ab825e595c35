/**
 * The `mce` command as users start it (bin/mce.js) runs the bundled CLI (scripts/bundle-cli.mjs, rebuilt before the
 * tests when stale): every module of mce's own comes from the bundle, the libraries a command does not need are not
 * loaded, files of the bundled packages (the OTLP .proto files, the price table) are found where those packages are,
 * and the packages loaded on demand (the store adapters) still come from their own package. Each run records the
 * files its process loaded (module-recorder.ts).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeTraceRequest } from '../../../ingest/src/otlp-protobuf.js';
import { libraries, moduleRecorder, ownFiles, recordSync, repo } from './module-recorder.js';

const recorder = moduleRecorder();
const dir = recorder.dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Runs `mce argv` in an empty directory; the files it loaded, as repo-relative paths (node_modules/… for libraries). */
const mce = (argv: string[]) => recordSync(recorder, argv);

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
    // Provider packages found by discovery are listed from their catalogues: none of their code (nor the core and
    // provider-native they import) is loaded (see deferred-providers.test.ts).
    expect(own.filter((f) => f !== 'packages/client/bin/mce.js' && !f.startsWith('packages/client/dist/bundle/'))).toEqual([]);
    const libs = libraries(run.loaded);
    for (const lazy of ['ajv', 'ajv-formats', 'protobufjs', 'yaml', 'pino', 'openai', 'better-sqlite3', 'pg', 'neo4j-driver', 'hono', 'zod']) expect(libs, lazy).not.toContain(lazy);
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
