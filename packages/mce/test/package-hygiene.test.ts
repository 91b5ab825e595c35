/**
 * scripts/check-packages.mjs catches a package that would publish badly. (The real packages are checked on the
 * tarballs pack-install.test.ts installs: one packed set for both.)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** A one-package workspace whose package has every fault the check looks for. */
function brokenWorkspace(): { root: string; allow: string } {
  const root = mkdtempSync(join(tmpdir(), 'mce-hygiene-'));
  const pkg = join(root, 'packages/bad');
  mkdirSync(join(pkg, 'test'), { recursive: true });
  mkdirSync(join(pkg, 'fixtures'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'ws', private: true, workspaces: ['packages/bad'], repository: { type: 'git', url: 'git+https://github.com/acme/ws.git' } }));
  // No description, engines, files or repository; an export without types; no README or CHANGELOG.
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@acme/bad', version: '1.0.0', type: 'module', license: 'MIT', exports: { '.': './index.js' } }));
  writeFileSync(join(pkg, 'index.js'), 'export const answer = 42;\n');
  writeFileSync(join(pkg, 'index.js.map'), '{"version":3,"sources":["index.ts"],"mappings":""}');
  writeFileSync(join(pkg, 'test/index.test.js'), 'throw new Error("a test");\n');
  writeFileSync(join(pkg, 'fixtures/session.json'), '{}');
  const allow = join(root, 'allow.json');
  writeFileSync(allow, JSON.stringify({ '@acme/bad': ['package.json', 'index.js', 'README.md', 'test/**'] }));
  return { root, allow };
}

it('a package with a bad manifest and unintended contents fails the check, each problem named', async () => {
  const { root, allow } = brokenWorkspace();
  const result = await run(process.execPath, [join(repo, 'scripts/check-packages.mjs'), '--root', root, '--allow', allow], { cwd: repo }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  expect(result.code).toBe(1);
  const lines = result.stderr.split('\n').filter((l) => l.startsWith('packages/bad (@acme/bad): ')).map((l) => l.slice('packages/bad (@acme/bad): '.length));
  expect(lines).toEqual(
    expect.arrayContaining([
      '"description" is missing',
      '"engines.node" is missing',
      '"files" is missing: npm would publish everything not ignored',
      '"exports" "." has no "types"',
      '"repository" is missing (npm run release:sync-repository)',
      'README.md is missing',
      'CHANGELOG.md is missing',
      "LICENSE is missing (a copy of the repository's LICENSE)",
      'publishes index.js.map (source maps, build info, tests, fixtures and sources are never published)',
      'publishes index.js.map, which its allow-list does not name',
      // Refused even where the allow-list lets it through.
      'publishes test/index.test.js (source maps, build info, tests, fixtures and sources are never published)',
      'publishes fixtures/session.json, which its allow-list does not name',
      'publishes nothing matching "README.md" (npm run build?)',
    ]),
  );
  expect(result.stderr).toMatch(/check-packages: \d+ problem\(s\)/);
});
