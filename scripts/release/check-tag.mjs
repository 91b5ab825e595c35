#!/usr/bin/env node
/**
 * Before a release: the tag is `mce-v<version of packages/mce>`, and the repository address in package.json is the
 * repository the workflow runs in (npm provenance refuses a package whose `repository` names another).
 *
 *   node scripts/release/check-tag.mjs TAG REPOSITORY_URL
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { normalRepositoryUrl, workspacePackages } from './workspace.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const [tag, repositoryUrl] = process.argv.slice(2);
const problems = [];

const packages = workspacePackages(repo);
const mce = packages.find((p) => p.manifest.name === 'mce');
if (tag !== `mce-v${mce.manifest.version}`) problems.push(`the tag ${tag} does not name packages/mce's version ${mce.manifest.version} (expected mce-v${mce.manifest.version})`);

const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const address = normalRepositoryUrl(root.repository?.url);
if (address !== normalRepositoryUrl(repositoryUrl)) {
  problems.push(`package.json "repository.url" is ${root.repository?.url ?? 'not set'}, not this repository (${repositoryUrl}): set it, then npm run release:sync-repository`);
}
for (const { relativeDir, manifest } of packages) {
  if (normalRepositoryUrl(manifest.repository?.url) !== address) problems.push(`${relativeDir}/package.json "repository.url" differs from the root's: npm run release:sync-repository`);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`check-tag: ${problem}`);
  process.exitCode = 1;
} else {
  console.log(`check-tag: ${tag} releases mce ${mce.manifest.version} from ${address}`);
}
