/**
 * Provider packages found without configuration: every installed package whose package.json declares an `mce`
 * field naming its provider module, as Python's entry-points group does for the seed's engine:
 *
 *   "mce": { "provider": "./dist/provider.js" }   (a path inside the package)
 *   "mce": { "provider": true }                  (the package's own entry point)
 *
 * and, beside it, the catalogue of its metrics (`"catalog": "./mce-catalog.json"` or the catalogue itself, see
 * provider-catalog.ts): then only that is read here, and the module is imported when a run needs it.
 *
 * The `node_modules` folders searched are those Node would resolve from: the project's (the configuration's
 * directory and its parents) and mce's own installation (a global install, or a provider installed beside it).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MAY_HAVE_MCE_FIELD, providerCandidates } from './discovery-index.js';
import { readCatalog, type ProviderCatalog } from './provider-catalog.js';

/** An installed package that says it is an mce provider. */
export interface ProviderPackage {
  name: string;
  version: string;
  /** The package's folder (its real path). */
  dir: string;
  /** The module to import, as a file URL. */
  specifier: string;
  /** Its metrics, when the package declares them (`mce.catalog`): it need not be imported to list them. */
  catalog?: ProviderCatalog;
}

/** What made a package unusable, by name (a broken plugin does not stop the others). */
export interface DiscoveryProblem {
  package: string;
  dir: string;
  message: string;
}

/** The `node_modules` folders from `start` up to the root. */
function nodeModulesChain(start: string): string[] {
  const dirs: string[] = [];
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (!dir.endsWith(`${sep}node_modules`)) dirs.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) return dirs;
  }
}

type Manifest = { name?: unknown; version?: unknown; mce?: unknown };

function readManifest(dir: string): Manifest | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
}

/** The text of a folder's package.json, or undefined when it has none (or it cannot be read). */
function manifestText(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
}

/** The module a manifest's `mce.provider` names; throws with what is wrong. */
function providerModule(dir: string, manifest: Manifest): string {
  const field = (manifest.mce as { provider?: unknown }).provider;
  if (field === true) {
    return pathToFileURL(createRequire(join(dir, 'package.json')).resolve(dir)).href;
  }
  if (typeof field !== 'string' || field === '') {
    throw new Error('package.json "mce.provider" must be a path inside the package or true');
  }
  const file = resolve(dir, field);
  if (file !== dir && !file.startsWith(`${dir}${sep}`)) throw new Error(`package.json "mce.provider" (${field}) leaves the package`);
  return pathToFileURL(file).href;
}

/**
 * The provider package in `dir` with its module, not its catalogue (which `mce provider catalog` writes); throws
 * with what is wrong.
 */
export function providerPackageAt(dir: string): { name: string; version: string; specifier: string; catalogField: unknown } {
  const real = realpathSync(dir);
  const manifest = readManifest(real);
  if (!manifest) throw new Error(`${join(dir, 'package.json')}: not found`);
  if (manifest.mce === null || typeof manifest.mce !== 'object' || !('provider' in manifest.mce)) {
    throw new Error(`${join(dir, 'package.json')}: no "mce.provider" field (the module that exports the provider)`);
  }
  const name = typeof manifest.name === 'string' ? manifest.name : real;
  const version = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  return { name, version, specifier: providerModule(real, manifest), catalogField: (manifest.mce as { catalog?: unknown }).catalog };
}

/** One folder (its real path, and its package.json's text): a provider package, a problem, or nothing (no `mce` field). */
function inspect(dir: string, text: string): ProviderPackage | DiscoveryProblem | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch (error) {
    return { package: dir.split(sep).slice(-2).join('/'), dir, message: `unreadable package.json: ${(error as Error).message}` };
  }
  if (manifest === null || typeof manifest !== 'object' || manifest.mce === undefined || manifest.mce === null || typeof manifest.mce !== 'object') return undefined;
  if (!('provider' in manifest.mce)) return undefined;
  const name = typeof manifest.name === 'string' ? manifest.name : dir;
  try {
    const version = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
    const catalog = (manifest.mce as { catalog?: unknown }).catalog;
    return { name, version, dir, specifier: providerModule(dir, manifest), ...(catalog === undefined ? {} : { catalog: readCatalog(dir, catalog, version) }) };
  } catch (error) {
    return { package: name, dir, message: (error as Error).message };
  }
}

/** mce's own installation: where `@mce/client` is. */
const OWN_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * The provider packages installed where `projectDir` and mce itself resolve packages from, nearest first; a package
 * seen twice (hoisted, or symlinked by a workspace) is listed once.
 */
export function discoverProviderPackages(projectDir: string): { packages: ProviderPackage[]; problems: DiscoveryProblem[] } {
  const packages: ProviderPackage[] = [];
  const problems: DiscoveryProblem[] = [];
  const seenCandidates = new Set<string>();
  const seenDirs = new Set<string>();
  const seenNames = new Set<string>();
  for (const nodeModules of new Set([...nodeModulesChain(projectDir), ...nodeModulesChain(OWN_DIR)])) {
    for (const candidate of providerCandidates(nodeModules)) {
      if (seenCandidates.has(candidate)) continue;
      seenCandidates.add(candidate);
      const text = manifestText(candidate);
      if (text === undefined || !MAY_HAVE_MCE_FIELD.test(text)) continue;
      let dir: string;
      try {
        dir = realpathSync(candidate);
      } catch {
        continue; // a dangling link
      }
      if (seenDirs.has(dir)) continue;
      seenDirs.add(dir);
      const found = inspect(dir, text);
      if (!found) continue;
      if ('message' in found) problems.push(found);
      else if (!seenNames.has(found.name)) {
        // The nearest copy of a package wins, as Node's resolution would pick it.
        seenNames.add(found.name);
        packages.push(found);
      }
    }
  }
  return { packages, problems };
}
