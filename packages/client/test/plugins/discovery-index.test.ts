/**
 * The index of a node_modules folder's provider candidates: made by one scan, used while the folder and its scopes
 * are unchanged, made again when a package is installed or removed; linked packages are read every time.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { providerCandidates } from '../../src/plugins/discovery-index.js';

function install(nodeModules: string, name: string, manifest: Record<string, unknown>): string {
  const dir = join(nodeModules, ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...manifest }));
  return dir;
}

const names = (nodeModules: string) => providerCandidates(nodeModules).map((p) => p.slice(nodeModules.length + 1)).sort();

describe('the provider candidates of a node_modules folder', () => {
  it('are the packages that may declare mce, kept in an index that an install or a removal makes stale', () => {
    const nodeModules = join(mkdtempSync(join(tmpdir(), 'mce-index-')), 'node_modules');
    install(nodeModules, 'left-pad', {});
    install(nodeModules, 'acme-mce', { mce: { provider: true } });
    install(nodeModules, '@corp/metrics', { mce: { provider: './p.js' } });
    install(nodeModules, '@corp/util', { description: 'mentions mce but has no such field' });
    expect(names(nodeModules)).toEqual(['@corp/metrics', 'acme-mce']);
    const index = JSON.parse(readFileSync(join(nodeModules, '.cache/mce/providers.json'), 'utf8')) as { candidates: string[] };
    expect(index.candidates.sort()).toEqual(['@corp/metrics', 'acme-mce']);

    // The index is what is read while nothing changed: an entry it lists is returned without a scan.
    writeFileSync(join(nodeModules, '.cache/mce/providers.json'), JSON.stringify({ ...index, candidates: ['acme-mce'] }));
    expect(names(nodeModules)).toEqual(['acme-mce']);

    install(nodeModules, 'beta-mce', { mce: { provider: true } }); // a new top-level package
    expect(names(nodeModules)).toEqual(['@corp/metrics', 'acme-mce', 'beta-mce']);
    install(nodeModules, '@corp/more', { mce: { provider: true } }); // a new package in an existing scope
    expect(names(nodeModules)).toEqual(['@corp/metrics', '@corp/more', 'acme-mce', 'beta-mce']);
    rmSync(join(nodeModules, 'acme-mce'), { recursive: true });
    expect(names(nodeModules)).toEqual(['@corp/metrics', '@corp/more', 'beta-mce']);
  });

  it('always include linked packages (their target changes unseen), and nothing for a folder that does not exist', () => {
    const root = mkdtempSync(join(tmpdir(), 'mce-index-'));
    const nodeModules = join(root, 'node_modules');
    install(nodeModules, 'left-pad', {});
    const target = install(join(root, 'packages'), 'local', {});
    symlinkSync(target, join(nodeModules, 'local'));
    expect(names(nodeModules)).toEqual(['local']);
    expect(names(nodeModules)).toEqual(['local']);
    expect(providerCandidates(join(root, 'none', 'node_modules'))).toEqual([]);
  });

  it('scans again when the index is unreadable', () => {
    const nodeModules = join(mkdtempSync(join(tmpdir(), 'mce-index-')), 'node_modules');
    install(nodeModules, 'acme-mce', { mce: { provider: true } });
    expect(names(nodeModules)).toEqual(['acme-mce']);
    writeFileSync(join(nodeModules, '.cache/mce/providers.json'), '{ half');
    expect(names(nodeModules)).toEqual(['acme-mce']);
  });
});
