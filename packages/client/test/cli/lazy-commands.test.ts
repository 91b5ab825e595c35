/** The CLI loads a command's code only when that command runs; help and suggestions still see every command. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandName } from '../../src/cli/main.js';
import { runCli, tempWorkspace } from './run-cli.js';

const builtMain = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const example = fileURLToPath(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url));
const probe = fileURLToPath(new URL('./fixtures/loaded-drivers.mjs', import.meta.url));
/** The version changesets last gave @mce/client: what `mce --version` prints. */
const clientVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The heavy CommonJS packages a run of the built CLI loaded. */
function driversLoaded(argv: string[], env: NodeJS.ProcessEnv): string[] {
  const out = spawnSync(process.execPath, [probe, builtMain, ...argv], { encoding: 'utf8', env: { ...process.env, ...env } });
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as string[];
}

describe('lazy command loading', () => {
  it('finds the command after the global options and their values', () => {
    expect(commandName(['--version'])).toBeUndefined();
    expect(commandName(['-vv', '--config', 'compute', 'metric', 'list'])).toBe('metric');
    expect(commandName(['--store-url', 'sqlite:x.db', '--debug', 'kg', 'results'])).toBe('kg');
    expect(commandName(['--config=x.yaml', 'serve'])).toBe('serve');
  });

  it('loads no store driver for --version, and SQLite only when a command opens a store', async () => {
    const ws = tempWorkspace();
    expect(driversLoaded(['--version'], ws.env)).toEqual([]);
    const stores = ['better-sqlite3', 'neo4j-driver', 'pg'];
    expect(driversLoaded(['set-eval-mode'], ws.env).filter((p) => stores.includes(p))).toEqual([]);
    // No store yet: `sessions list` answers so without loading the driver; once one exists it opens it.
    expect(driversLoaded(['sessions', 'list'], ws.env).filter((p) => stores.includes(p))).toEqual([]);
    expect((await runCli(['ingest', example], ws)).code).toBe(0);
    expect(driversLoaded(['sessions', 'list'], ws.env).filter((p) => stores.includes(p))).toEqual(['better-sqlite3']);
  });

  it('loads no logging library for a run that logs nothing at its level (warn by default)', () => {
    const ws = tempWorkspace();
    const pinoLoaded = (argv: string[]) => driversLoaded(argv, ws.env).includes('pino');
    expect(pinoLoaded(['compute', '--input', example, '--no-store'])).toBe(false);
    // -v: the run's summary is an info line, so pino is loaded to write it.
    expect(pinoLoaded(['-v', 'compute', '--input', example, '--no-store'])).toBe(true);
  });

  it('lists every command in the help, and suggests one for a misspelt command', async () => {
    const ws = tempWorkspace();
    const help = await runCli(['--help'], ws);
    expect(help.code).toBe(0);
    const section = help.stdout.slice(help.stdout.indexOf('Commands:'));
    const commands = [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]);
    expect(commands).toEqual(['metric', 'provider', 'compute', 'ingest', 'sessions', 'kg', 'set-eval-mode', 'worker', 'enqueue', 'serve', 'receive', 'export', 'report', 'check', 'api-key', 'help']);
    const typo = await runCli(['comptue'], ws);
    expect([typo.code, typo.stderr]).toEqual([2, expect.stringContaining("unknown command 'comptue'\n(Did you mean compute?)")]);
    expect((await runCli(['--version'], ws)).stdout).toBe(`${clientVersion}\n`);
    expect(clientVersion).toMatch(/^\d+\.\d+\.\d+/);
  });
});
