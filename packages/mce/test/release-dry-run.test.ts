/**
 * A release, short of the network: on a copy of the repository (manifests, changelogs, the built files), a sample
 * changeset goes through `changeset version`; the bumped versions, internal ranges and CHANGELOGs are checked; the
 * packages are packed and scripts/release/publish-unpublished.mjs runs `npm publish --dry-run` for each against a
 * registry on loopback (404 for every package but one, which has the new version already: left alone); the release
 * notes and the tag check follow. Nothing is published anywhere. Needs the build (npm run build).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const MINUTES = 60_000;
/** Already on the test registry at its bumped version. */
const PUBLISHED_ALREADY = '@mce/store-neo4j';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

async function sh(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

/** What a release reads: manifests, changesets' config, the release scripts and each package's built files. */
function copyRepository(into: string): void {
  for (const file of ['package.json', '.changeset/config.json']) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(repo, file), join(into, file));
  }
  cpSync(join(repo, 'scripts/release'), join(into, 'scripts/release'), { recursive: true });
  for (const pkg of readdirSync(join(repo, 'packages'))) {
    cpSync(join(repo, 'packages', pkg), join(into, 'packages', pkg), { recursive: true, filter: (path) => !/[\\/](node_modules|src|test)$/.test(path) && !path.endsWith('.map') });
  }
  // changesets loads its changelog generator, and the command its dependencies, from node_modules: the repository's,
  // but for the workspace packages, which are the copy's (as npm links them).
  mkdirSync(join(into, 'node_modules/@mce'), { recursive: true });
  for (const entry of readdirSync(join(repo, 'node_modules'))) {
    if (entry !== '@mce' && entry !== 'mce' && entry !== '.bin') symlinkSync(join(repo, 'node_modules', entry), join(into, 'node_modules', entry));
  }
  for (const pkg of readdirSync(join(into, 'packages'))) {
    symlinkSync(join(into, 'packages', pkg), pkg === 'mce' ? join(into, 'node_modules/mce') : join(into, 'node_modules/@mce', pkg));
  }
}

/** A registry that knows only PUBLISHED_ALREADY (at its bumped version) and records what it was asked. */
function registry(version: () => string) {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${decodeURIComponent(request.url ?? '')}`);
    if (request.method === 'GET' && decodeURIComponent(request.url ?? '') === `/${PUBLISHED_ALREADY}`) {
      const v = version();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ name: PUBLISHED_ALREADY, 'dist-tags': { latest: v }, versions: { [v]: { name: PUBLISHED_ALREADY, version: v } } }));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  return { server, requests };
}

const copy = mkdtempSync(join(tmpdir(), 'mce-release-'));
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(copy, 'packages', dir, 'package.json'), 'utf8')) as Manifest;
const fake = registry(() => manifest('store-neo4j').version);
let registryUrl = '';

beforeAll(async () => {
  if (!existsSync(join(repo, 'packages/client/dist/bundle/main.js'))) expect((await sh('npm', ['run', 'build'], repo)).code).toBe(0);
  copyRepository(copy);
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  registryUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => fake.server.close(() => resolve())));

describe('a release dry run', () => {
  it('changeset version bumps what the changeset names and the dependents it leaves out of range, with ^ ranges and changelogs', async () => {
    writeFileSync(join(copy, '.changeset/sample-release.md'), "---\n'@mce/core': minor\n'@mce/helper': patch\n---\n\nThe ontology gains a field.\n");
    writeFileSync(join(copy, '.changeset/sample-metric.md'), "---\n'@mce/provider-native': minor\n---\n\nA new metric.\n");
    const started = performance.now();
    const versioned = await sh(process.execPath, [join(repo, 'node_modules/@changesets/cli/bin.js'), 'version'], copy);
    console.log(`release dry run: changeset version: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(versioned.code, versioned.stderr).toBe(0);
    expect(readdirSync(join(copy, '.changeset'))).toEqual(['config.json']);

    const dirs = readdirSync(join(copy, 'packages')).sort();
    const versions = Object.fromEntries(dirs.map((d) => [manifest(d).name, manifest(d).version]));
    // core and provider-native: minor; helper: patch; everything that depends on core: patch, as ^0.1.0 no longer
    // admits 0.2.0.
    expect(versions).toEqual({
      '@mce/client': '0.1.1', '@mce/core': '0.2.0', '@mce/helper': '0.1.1', '@mce/ingest': '0.1.1', mce: '0.1.1',
      '@mce/provider-deepeval': '0.1.1', '@mce/provider-native': '0.2.0', '@mce/provider-opik': '0.1.1', '@mce/provider-ragas': '0.1.1',
      '@mce/provider-sdk': '0.1.1', '@mce/legacy': '0.1.1',
      '@mce/store': '0.1.1', '@mce/store-neo4j': '0.1.1', '@mce/store-postgres': '0.1.1', '@mce/worker': '0.1.1',
    });
    // Every internal dependency is a ^ range on the new version; optional peers stay ^ ranges that admit it.
    for (const dir of dirs) {
      const { name, dependencies = {}, peerDependencies = {} } = manifest(dir);
      for (const [dep, range] of Object.entries(dependencies)) if (dep in versions) expect([name, dep, range]).toEqual([name, dep, `^${versions[dep]}`]);
      for (const [dep, range] of Object.entries(peerDependencies)) if (dep in versions) expect([name, dep, range]).toEqual([name, dep, '^0.1.0']);
    }
    expect(manifest('client').dependencies?.['@mce/core']).toBe('^0.2.0');
    expect(manifest('mce').dependencies?.['@mce/helper']).toBe('^0.1.1');

    const changelog = (dir: string) => readFileSync(join(copy, 'packages', dir, 'CHANGELOG.md'), 'utf8');
    expect(changelog('core')).toMatch(/^# @mce\/core\n\n## 0\.2\.0\n\n### Minor Changes\n\n- The ontology gains a field\.\n\n## 0\.1\.0\n/);
    expect(changelog('helper')).toMatch(/^# @mce\/helper\n\n## 0\.1\.1\n\n### Patch Changes\n\n- The ontology gains a field\.\n/);
    expect(changelog('client')).toMatch(/^# @mce\/client\n\n## 0\.1\.1\n\n### Patch Changes\n\n(?:- Updated dependencies\n)+(?: {2}- @mce\/[a-z-]+@0\.\d\.\d\n)*? {2}- @mce\/core@0\.2\.0\n/);
    expect(changelog('provider-native')).toMatch(/^# @mce\/provider-native\n\n## 0\.2\.0\n\n### Minor Changes\n\n- A new metric\.\n\n### Patch Changes\n\n- Updated dependencies\n {2}- @mce\/core@0\.2\.0\n/);
    // The command and the providers report the versions changesets gave their packages.
    const mce = (...args: string[]) => sh(process.execPath, [join(copy, 'packages/client/bin/mce.js'), ...args], copy);
    expect((await mce('--version')).stdout.trim()).toBe('0.1.1');
    const listed = await mce('provider', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const providers = JSON.parse(listed.stdout) as { name: string; version: string }[];
    expect(providers.filter((p) => ['mce', 'ragas'].includes(p.name)).map((p) => [p.name, p.version]).sort()).toEqual([['mce', '0.2.0'], ['ragas', '0.1.1']]);
  }, 2 * MINUTES);

  it('packs, and npm publish --dry-run runs for every package the registry lacks, dependencies first', async () => {
    const packs = join(copy, 'packs');
    mkdirSync(packs);
    const packed = await sh('npm', ['pack', '--workspaces', '--pack-destination', packs], copy);
    expect(packed.code, packed.stderr).toBe(0);
    expect(readdirSync(packs)).toContain('mce-core-0.2.0.tgz');

    const report = join(copy, 'published.json');
    const started = performance.now();
    const published = await sh(process.execPath, [join(copy, 'scripts/release/publish-unpublished.mjs'), '--packs', packs, '--dry-run', '--registry', registryUrl, '--report', report], copy);
    const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz')).length;
    console.log(`release dry run: npm publish --dry-run of ${tarballs} packages: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toContain(`${PUBLISHED_ALREADY}@0.1.1: already on the registry, left alone`);
    expect(published.stdout).toContain(`publish-unpublished: ${tarballs - 1} package(s) would be published`);
    const names = (JSON.parse(readFileSync(report, 'utf8')) as { name: string; version: string }[]).map((p) => `${p.name}@${p.version}`);
    expect(names).toHaveLength(tarballs - 1); // all but the one the registry has
    expect(names).not.toContain(`${PUBLISHED_ALREADY}@0.1.1`);
    // Dependencies before dependents.
    const at = (name: string) => names.findIndex((n) => n.startsWith(`${name}@`));
    expect(at('@mce/core')).toBe(0);
    expect(at('@mce/store')).toBeLessThan(at('@mce/store-postgres'));
    expect(at('@mce/client')).toBeLessThan(at('@mce/worker'));
    expect(names.at(-1)).toBe('mce@0.1.1');
    // The registry was asked, never written to.
    expect(fake.requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
    expect(fake.requests).toContain('GET /@mce/core');

    const notes = await sh(process.execPath, [join(copy, 'scripts/release/release-notes.mjs'), '--report', report], copy);
    expect(notes.code, notes.stderr).toBe(0);
    expect(notes.stdout).toContain('## @mce/core@0.2.0\n\n### Minor Changes\n\n- The ontology gains a field.\n');
    expect(notes.stdout).toContain('## mce@0.1.1\n');
    expect(notes.stdout).not.toContain(`## ${PUBLISHED_ALREADY}@`);
  }, 5 * MINUTES);

  it('the tag must name the version of packages/mce and the workflow run in the repository package.json names', async () => {
    const address = (JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const check = (tag: string, url: string) => sh(process.execPath, [join(copy, 'scripts/release/check-tag.mjs'), tag, url], copy);
    expect(await check('mce-v0.1.1', address)).toMatchObject({ code: 0, stdout: expect.stringContaining('mce-v0.1.1 releases mce 0.1.1') });
    expect(await check('mce-v0.1.0', address)).toMatchObject({ code: 1, stderr: expect.stringContaining('does not name packages/mce\'s version 0.1.1') });
    expect(await check('mce-v0.1.1', 'https://github.com/someone/else')).toMatchObject({ code: 1, stderr: expect.stringContaining('not this repository') });
  });
});
