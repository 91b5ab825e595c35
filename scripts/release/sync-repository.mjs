#!/usr/bin/env node
/**
 * The repository address is kept in one place, the root package.json's `repository`; this copies it into every
 * workspace package's package.json with that package's `directory` (npm shows it; provenance checks it).
 *
 *   npm run release:sync-repository
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspacePackages } from './workspace.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const root = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
if (!root.repository?.url) throw new Error('sync-repository: the root package.json has no "repository.url"');

for (const { dir, relativeDir } of workspacePackages(repo)) {
  const file = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  manifest.repository = { type: 'git', url: root.repository.url, directory: relativeDir };
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
console.log(`sync-repository: ${root.repository.url} in every package`);
