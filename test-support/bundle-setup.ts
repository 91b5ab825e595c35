/**
 * Before the tests: the bundled `mce` and `mce-worker` commands (packages/client/dist/bundle and
 * packages/worker/dist/bundle, which their bins run) rebuilt when a file they are made from changed, so tests that
 * start a command run the code just built by `tsc -b`, not a stale bundle. Without a build of the packages there is
 * nothing to bundle: those tests then fail as they would anyway.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const repo = fileURLToPath(new URL('../', import.meta.url));
  if (!existsSync(`${repo}packages/client/dist/cli/main.js`)) return;
  const run = spawnSync(process.execPath, ['scripts/bundle-cli.mjs', '--if-stale'], { cwd: repo, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`scripts/bundle-cli.mjs failed (exit ${run.status}): ${run.stderr}`);
}
