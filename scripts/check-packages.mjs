#!/usr/bin/env node
/**
 * Package hygiene of every workspace package, as it would be published:
 *  - the manifest: `files`, `exports` (a `types` condition, first, for each module entry), `engines.node`, `license`,
 *    `description`, `repository` (the root package.json's address, with the package's directory), a README.md, a
 *    CHANGELOG.md and the repository's LICENSE;
 *  - the packed contents (`npm pack --json`) against the package's allow-list (scripts/release/published-files.json):
 *    every file allowed, every pattern used; source maps, build info, tests, fixtures and sources refused outright;
 *  - publint (strict) and Are the Types Wrong on each tarball: Node 16+ resolution from ESM and from CommonJS, which
 *    loads these ES modules with require() on the supported Node versions (engines ≥ 20.19).
 *
 *   node scripts/check-packages.mjs [--tarballs DIR] [--root DIR] [--allow FILE]
 *
 * --tarballs: check the tarballs already packed there (`npm pack --workspaces --pack-destination DIR`) instead of
 * packing anew; --root: another repository (tests); --allow: another allow-list. Exit 1 listing every problem.
 * Needs the build (npm run build): the contents are those of dist/.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import picomatch from 'picomatch';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { normalRepositoryUrl, tarballName, workspacePackages } from './release/workspace.mjs';

const run = promisify(execFile);
const { values: options } = parseArgs({ options: { tarballs: { type: 'string' }, root: { type: 'string' }, allow: { type: 'string' } } });
const root = resolve(options.root ?? fileURLToPath(new URL('../', import.meta.url)));
const allowList = JSON.parse(readFileSync(options.allow ?? join(root, 'scripts/release/published-files.json'), 'utf8'));
const REFUSED = ['**/*.map', '**/.tsbuildinfo', '**/*.tsbuildinfo', '**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**', '**/fixtures/**', 'src/**', '**/.env*'];
const refused = picomatch(REFUSED, { dot: true });

/** The manifest's own problems. */
function manifestProblems({ manifest, relativeDir, dir }, rootManifest) {
  const problems = [];
  for (const field of ['name', 'version', 'description', 'license']) if (typeof manifest[field] !== 'string' || manifest[field] === '') problems.push(`"${field}" is missing`);
  if (typeof manifest.engines?.node !== 'string') problems.push('"engines.node" is missing');
  if (!Array.isArray(manifest.files) || manifest.files.length === 0) problems.push('"files" is missing: npm would publish everything not ignored');
  if (typeof manifest.exports !== 'object' || manifest.exports === null) problems.push('"exports" is missing');
  else {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string' ? /\.[cm]?js$/.test(target) : !Object.keys(target).includes('types')) problems.push(`"exports" "${subpath}" has no "types"`);
      else if (typeof target === 'object' && Object.keys(target).filter((k) => k !== 'source')[0] !== 'types') problems.push(`"exports" "${subpath}": "types" must come first`);
    }
  }
  const address = normalRepositoryUrl(rootManifest.repository?.url);
  if (!manifest.repository?.url) problems.push('"repository" is missing (npm run release:sync-repository)');
  else if (normalRepositoryUrl(manifest.repository.url) !== address || manifest.repository.directory !== relativeDir) {
    problems.push(`"repository" is not the root's ${address} with "directory": "${relativeDir}" (npm run release:sync-repository)`);
  }
  for (const file of ['README.md', 'CHANGELOG.md']) if (!existsSync(join(dir, file))) problems.push(`${file} is missing`);
  // npm packs a package's LICENSE whatever `files` says; the licence text must be the repository's own.
  if (!existsSync(join(dir, 'LICENSE'))) problems.push('LICENSE is missing (a copy of the repository\'s LICENSE)');
  else if (readFileSync(join(dir, 'LICENSE'), 'utf8') !== readFileSync(join(root, 'LICENSE'), 'utf8')) problems.push('LICENSE is not the repository\'s LICENSE');
  return problems;
}

/** The packed file list against the allow-list. */
function contentProblems(name, files) {
  const patterns = allowList[name];
  if (!Array.isArray(patterns)) return [`no allow-list entry in published-files.json`];
  const problems = [];
  const matchers = patterns.map((pattern) => ({ pattern, test: picomatch(pattern, { dot: true }), used: false }));
  for (const file of files) {
    if (refused(file)) problems.push(`publishes ${file} (source maps, build info, tests, fixtures and sources are never published)`);
    const matching = matchers.filter((m) => m.test(file));
    for (const m of matching) m.used = true;
    if (matching.length === 0) problems.push(`publishes ${file}, which its allow-list does not name`);
  }
  for (const m of matchers) if (!m.used) problems.push(`publishes nothing matching "${m.pattern}" (npm run build?)`);
  return problems;
}

async function publintProblems(tarball) {
  const data = readFileSync(tarball);
  const { messages, pkg } = await publint({ pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) }, level: 'suggestion', strict: true });
  return messages.map((m) => `publint ${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`);
}

/** Are the Types Wrong: node10 resolution is not supported (subpath exports), CommonJS consumers require() ESM. */
async function attwProblems(tarball) {
  const result = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
  if (!result.types) return [];
  return result.problems
    .filter((p) => p.resolutionKind !== 'node10' && p.kind !== 'CJSResolvesToESM')
    .map((p) => `attw ${p.kind}${p.entrypoint ? ` at "${p.entrypoint}"` : ''}${p.resolutionKind ? ` (${p.resolutionKind})` : ''}`);
}

/** `npm pack --workspaces --json`: a dry run over the given tarballs' directory, else packed into a temporary one. */
async function packed(tarballs) {
  const destination = tarballs ?? mkdtempSync(join(tmpdir(), 'mce-check-packages-'));
  const args = ['pack', '--workspaces', '--json', ...(tarballs ? ['--dry-run'] : ['--pack-destination', destination])];
  const { stdout } = await run('npm', args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return { destination, temporary: !tarballs, reports: new Map(JSON.parse(stdout).map((r) => [r.name, r])) };
}

const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const packages = workspacePackages(root).filter((p) => !p.manifest.private);
const { destination, temporary, reports } = await packed(options.tarballs && resolve(options.tarballs));
let count = 0;
try {
  for (const pkg of packages) {
    const { name, version } = pkg.manifest;
    const problems = manifestProblems(pkg, rootManifest);
    const report = reports.get(name);
    if (!report) problems.push('npm pack did not pack it');
    else problems.push(...contentProblems(name, report.files.map((f) => f.path)));
    const tarball = join(destination, tarballName(name, version));
    if (!existsSync(tarball)) problems.push(`${tarball} is missing`);
    else problems.push(...(await publintProblems(tarball)), ...(await attwProblems(tarball)));
    for (const problem of problems) console.error(`${pkg.relativeDir} (${name}): ${problem}`);
    count += problems.length;
  }
} finally {
  if (temporary) rmSync(destination, { recursive: true, force: true });
}
if (count > 0) {
  console.error(`check-packages: ${count} problem(s)`);
  process.exitCode = 1;
} else {
  console.log(`check-packages: ${packages.length} packages: manifests, contents, publint and attw clean`);
}
