import { readFileSync } from 'node:fs';

/**
 * The `version` of the package.json at `url`: a provider reports its package's version, the one changesets sets,
 * rather than a copy of it in the code. `new URL('../package.json', import.meta.url)` from `src/` and `dist/` alike.
 */
export function packageVersion(url: URL): string {
  const { version } = JSON.parse(readFileSync(url, 'utf8')) as { version?: unknown };
  if (typeof version !== 'string') throw new Error(`${url.pathname}: no "version"`);
  return version;
}
