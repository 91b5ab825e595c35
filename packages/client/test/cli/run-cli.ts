/** Runs the CLI in-process with captured output, in a temporary working directory with its own SQLite store. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json<T = unknown>(): T;
}

export function tempWorkspace(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'mce-cli-'));
  return {
    dir,
    env: { PATH: process.env.PATH, MCE_STORE_URL: `sqlite:${join(dir, 'mce.db')}`, MCE_METRIC_CACHE: join(dir, 'cache.db'), MCE_CONFIG_HOME: join(dir, 'user-config') },
  };
}

export async function runCli(argv: string[], ws: { dir: string; env: NodeJS.ProcessEnv }): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (s: string | Uint8Array) => ((stdout += String(s)), true) } as never,
    stderr: { write: (s: string | Uint8Array) => ((stderr += String(s)), true) } as never,
    env: { ...ws.env },
    cwd: ws.dir,
  });
  return { code, stdout, stderr, json: <T,>() => JSON.parse(stdout) as T };
}
