/** The workspace packages as the release scripts see them: directory, manifest, tarball name, publish order. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Every workspace package of the repository at `root`, in the order of the root package.json's `workspaces`. */
export function workspacePackages(root) {
  const { workspaces } = readJson(join(root, 'package.json'));
  return workspaces.map((dir) => ({ dir: join(root, dir), relativeDir: dir, manifest: readJson(join(root, dir, 'package.json')) }));
}

/** The file `npm pack` writes: `@mce/core` 0.2.0 → `mce-core-0.2.0.tgz`. */
export function tarballName(name, version) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** Dependencies before their dependents (peer and dev dependencies do not order), so no release names a missing one. */
export function publishOrder(packages) {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const ordered = [];
  const visiting = new Set();
  const visit = (pkg) => {
    if (ordered.includes(pkg)) return;
    if (visiting.has(pkg)) throw new Error(`dependency cycle through ${pkg.manifest.name}`);
    visiting.add(pkg);
    for (const dep of Object.keys(pkg.manifest.dependencies ?? {})) if (byName.has(dep)) visit(byName.get(dep));
    visiting.delete(pkg);
    ordered.push(pkg);
  };
  for (const pkg of packages) visit(pkg);
  return ordered;
}

/** `git+https://github.com/o/r.git` → `https://github.com/o/r`: the form a repository's address is compared in. */
export function normalRepositoryUrl(url) {
  return String(url ?? '')
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')
    .replace(/\/$/, '');
}
