/**
 * Runs the `mce` command as users start it (bin/mce.js), or another bin, and records the files its process loaded: ES modules through
 * a loader hook, CommonJS through require.cache at exit. Paths come back repo-relative (node_modules/… for libraries).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const MCE_BIN = join(repo, 'packages/client/bin/mce.js');

const RECORDER = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const log = process.env.MCE_TEST_MODULE_LOG;
register('data:text/javascript,' + encodeURIComponent(
  "import { appendFileSync } from 'node:fs';" +
  'export async function load(url, context, next) { appendFileSync(' + JSON.stringify(log) + ', url + "\\\\n"); return next(url, context); }'));
process.on('exit', () => appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).map((f) => f + '\\n').join('')));
`;

export interface RecordedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  loaded: string[];
}

/** A directory to run in (no mce_config.yaml), with the recorder; `bin` runs there with its own store and no cache. */
export function moduleRecorder(bin = MCE_BIN): { dir: string; argvOf(argv: string[]): { args: string[]; env: NodeJS.ProcessEnv; log: string }; read(log: string): string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'mce-modules-'));
  const recorder = join(dir, 'recorder.mjs');
  writeFileSync(recorder, RECORDER);
  let runs = 0;
  return {
    dir,
    argvOf(argv) {
      const log = join(dir, `modules-${++runs}.txt`);
      writeFileSync(log, '');
      const env = { ...process.env, MCE_TEST_MODULE_LOG: log, MCE_STORE_URL: `sqlite:${join(dir, `${runs}.db`)}`, MCE_METRIC_CACHE: 'none', MCE_CONFIG_HOME: join(dir, 'home') };
      return { args: ['--import', pathToFileURL(recorder).href, bin, ...argv], env, log };
    },
    read(log) {
      const loaded = readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('node:') && !line.startsWith('data:'))
        .map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line))
        .map((file) => file.replace(repo, '').replace(/^.*node_modules\//, 'node_modules/'));
      return [...new Set(loaded)];
    },
  };
}

/** Runs `mce argv` to its end (blocking: nothing in this process has to answer it). */
export function recordSync(recorder: ReturnType<typeof moduleRecorder>, argv: string[]): RecordedRun {
  const { args, env, log } = recorder.argvOf(argv);
  const run = spawnSync(process.execPath, args, { cwd: recorder.dir, env, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, loaded: recorder.read(log) };
}

/** Runs `mce argv` without blocking this process (a server of the test's may have to answer it). */
export function record(recorder: ReturnType<typeof moduleRecorder>, argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<RecordedRun> {
  const { args, env, log } = recorder.argvOf(argv);
  const child = spawn(process.execPath, args, { cwd: recorder.dir, env: { ...env, ...extraEnv } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr, loaded: recorder.read(log) }));
  });
}

/** The package a loaded library file belongs to (node_modules/@scope/name or node_modules/name). */
export const libraries = (loaded: string[]) => new Set(loaded.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/').slice(1, f.startsWith('node_modules/@') ? 3 : 2).join('/')));
/** The code files of mce's own packages it loaded (data files such as JSON schemas are read where they are). */
export const ownFiles = (loaded: string[]) => loaded.filter((f) => f.startsWith('packages/') && /\.[cm]?js$/.test(f));
