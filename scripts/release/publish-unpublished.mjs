#!/usr/bin/env node
/**
 * Publishes the packed tarballs of every workspace package whose version the registry does not have yet, dependencies
 * first; a version already there is left alone (a re-run after a partial failure publishes the rest).
 *
 *   node scripts/release/publish-unpublished.mjs --packs DIR [--report FILE] [--dry-run] [--registry URL]
 *
 * --packs: the directory `npm pack --workspaces --pack-destination` wrote; --report: a JSON list of the
 * {name, version} published (or, with --dry-run, that would be); --registry: passed to npm (tests use a local one).
 * Provenance is npm's own setting (NPM_CONFIG_PROVENANCE=true in the release workflow). A prerelease version
 * (`0.3.0-rc.1`) is published under the dist-tag `next`, anything else under `latest`.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { publishOrder, tarballName, workspacePackages } from './workspace.mjs';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));

const { values: options } = parseArgs({
  options: { packs: { type: 'string' }, report: { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, registry: { type: 'string' } },
});
if (!options.packs) throw new Error('publish-unpublished: --packs DIR is required');
const registryArgs = options.registry ? ['--registry', options.registry] : [];

/** true when the registry has this version; false when it has not (the package or the version is unknown). */
async function onRegistry(name, version) {
  try {
    const { stdout } = await run('npm', ['view', `${name}@${version}`, 'version', '--json', ...registryArgs]);
    // An unknown version of a known package prints nothing and exits 0.
    return stdout.trim() !== '' && JSON.parse(stdout) === version;
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    if (/E404|404 Not Found|is not in this registry/.test(output)) return false;
    throw new Error(`npm view ${name}@${version} failed: ${output.trim() || error.message}`, { cause: error });
  }
}

async function publish(tarball, version) {
  const tag = version.includes('-') ? 'next' : 'latest';
  const args = ['publish', tarball, '--access', 'public', '--tag', tag, ...registryArgs, ...(options['dry-run'] ? ['--dry-run'] : [])];
  const { stderr } = await run('npm', args, { maxBuffer: 16 * 1024 * 1024 });
  return stderr;
}

const published = [];
for (const { manifest } of publishOrder(workspacePackages(repo))) {
  const { name, version } = manifest;
  if (manifest.private) continue;
  const tarball = join(resolve(options.packs), tarballName(name, version));
  if (!existsSync(tarball)) throw new Error(`publish-unpublished: ${tarball} is missing (npm pack --workspaces first)`);
  if (await onRegistry(name, version)) {
    console.log(`${name}@${version}: already on the registry, left alone`);
    continue;
  }
  await publish(tarball, version);
  published.push({ name, version });
  console.log(`${name}@${version}: ${options['dry-run'] ? 'would be published (dry run)' : 'published'}`);
}
if (options.report) writeFileSync(options.report, `${JSON.stringify(published, null, 2)}\n`);
console.log(`publish-unpublished: ${published.length} package(s) ${options['dry-run'] ? 'would be ' : ''}published`);
