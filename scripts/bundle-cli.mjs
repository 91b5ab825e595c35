#!/usr/bin/env node
/**
 * Bundles the `mce` command (packages/client/dist/cli/main.js, built by tsc) into packages/client/dist/bundle/, and
 * the `mce-worker` command (packages/worker/dist/cli.js) into packages/worker/dist/bundle/: a handful of files
 * instead of 300+ ES modules, whose one-by-one resolution and loading was most of a command's start-up
 * (bench/startup). Each `mce` command's code stays a chunk of its own, loaded when the command runs.
 *
 * What stays outside the bundle, loaded from node_modules as before:
 *  - every `@mce/*` package the command's package (the client, the worker) does not depend on (the store adapters, the worker, provider packages, …):
 *    optional peers, loaded on demand by name;
 *  - every peer dependency of a bundled package (better-sqlite3, …) and openai (loaded at the first judge call);
 *  - every CommonJS package (its package.json has no "type": "module"): Node loads those synchronously and cheaply, and their run-time `require`s and file
 *    paths stay as their authors wrote them.
 * zod's translated error messages (`z.locales`, 63 locales, a third of the shared chunk) are left out but English, the
 * default and the only one mce uses: every command parsed them at start.
 * A bundled file's `import.meta.url` is its own file's URL in its package, found at run time through that package's
 * package.json, so data files, worker-thread entries and `createRequire` resolve as they do unbundled.
 *
 *   node scripts/bundle-cli.mjs [--if-stale]   (npm run build runs it; --if-stale skips when no input changed)
 */
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));
/** The commands bundled: the package whose bin runs the bundle, and the module tsc built for it. */
const COMMANDS = [
  { name: '@mce/client', dir: join(repo, 'packages/client'), entry: 'dist/cli/main.js' },
  { name: '@mce/worker', dir: join(repo, 'packages/worker'), entry: 'dist/cli.js' },
];

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The workspace packages by name, with their directories and manifests. */
function workspacePackages() {
  const root = readJson(join(repo, 'package.json'));
  return new Map(root.workspaces.map((dir) => {
    const manifest = readJson(join(repo, dir, 'package.json'));
    return [manifest.name, { dir: join(repo, dir), manifest }];
  }));
}

/** The command's package and the `@mce/*` packages it depends on, directly or through one another: these are bundled. */
function bundledPackages(workspace, root) {
  const found = new Set();
  const visit = (name) => {
    if (found.has(name)) return;
    found.add(name);
    for (const dep of Object.keys(workspace.get(name)?.manifest.dependencies ?? {})) if (dep.startsWith('@mce/')) visit(dep);
  };
  visit(root);
  return found;
}

const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * Whether `file` is part of an ES-module package: the nearest package.json says "type": "module". (A CommonJS
 * package's .mjs wrapper, as commander has, re-exports its CommonJS files: that package stays external.)
 */
function isEsmPackage(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return readJson(manifest).type === 'module';
  }
  return false;
}

/**
 * The run-time helper, one module shared by every chunk: the URL of a file of a bundled package, from where Node
 * resolves that package for the command's package (each package's root resolved once). The command's package's own
 * files are found from the bundle itself, which lives in its dist/bundle/.
 */
const fileUrlModule = (own) => `import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const roots = new Map([[${JSON.stringify(own)}, new URL('../../', import.meta.url)]]);
export function __mceFileUrl(pkg, file) {
  let root = roots.get(pkg);
  if (root === undefined) roots.set(pkg, (root = pathToFileURL(createRequire(import.meta.url).resolve(pkg + '/package.json'))));
  return new URL(file, root).href;
}
`;
const FILE_URL = 'mce-bundle:file-url';

/** zod's list of locales (`z.locales`): only English, the one zod configures by default, is kept. */
const ZOD_LOCALES = join('node_modules', 'zod', 'v4', 'locales', 'index.js');
const ENGLISH_ONLY = `export { default as en } from './en.js';\n`;

function mcePlugin(workspace, bundled, own) {
  const skip = Symbol('resolving');
  const peers = new Set([...bundled].flatMap((name) => Object.keys(workspace.get(name).manifest.peerDependencies ?? {})));
  const onDemand = new Set(['openai']);
  const owners = [...bundled].map((name) => ({ name, dir: workspace.get(name).dir + sep }));
  return {
    name: 'mce-bundle',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path === FILE_URL) return { path: FILE_URL, namespace: 'mce-bundle' };
        if (args.pluginData === skip || args.path.startsWith('node:')) return undefined;
        const name = packageName(args.path);
        if (name.startsWith('@mce/')) return bundled.has(name) ? undefined : { path: args.path, external: true };
        if (peers.has(name) || onDemand.has(name)) return { path: args.path, external: true };
        const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: skip });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external || !isEsmPackage(resolved.path)) return { path: args.path, external: true };
        return { path: resolved.path };
      });
      b.onLoad({ filter: /.*/, namespace: 'mce-bundle' }, () => ({ contents: fileUrlModule(own), loader: 'js', resolveDir: repo }));
      b.onLoad({ filter: /\.m?js$/ }, (args) => {
        const where = relative(repo, args.path);
        if (where.endsWith(ZOD_LOCALES)) return { contents: ENGLISH_ONLY, loader: 'js' };
        if (args.path.endsWith('.cjs') || !isEsmPackage(args.path)) return { errors: [{ text: `${where} is CommonJS: its package must stay external (a bundled require of a Node module fails at run time)` }] };
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta')) return { contents: source, loader: 'js' };
        const owner = owners.find((o) => args.path.startsWith(o.dir));
        if (!owner) return { errors: [{ text: `${where} uses import.meta: a bundled third-party ES module must not (its paths would point into the bundle); keep its package external` }] };
        const file = relative(owner.dir, args.path).split(sep).join('/');
        // Imports are hoisted, so one prepended line imports the helper wherever the file used import.meta.url.
        const contents = `import { __mceFileUrl } from '${FILE_URL}';\n` + source.replaceAll('import.meta.url', `__mceFileUrl(${JSON.stringify(owner.name)}, ${JSON.stringify(file)})`);
        if (contents.includes('import.meta')) return { errors: [{ text: `${where} uses import.meta other than import.meta.url, which the bundle cannot map` }] };
        return { contents, loader: 'js' };
      });
    },
  };
}

/** Whether the bundle is older than one of the files it was made from (or than the script itself). */
function stale(entry, inputsFile) {
  if (!existsSync(inputsFile)) return true;
  const made = statSync(inputsFile).mtimeMs;
  const inputs = [fileURLToPath(import.meta.url), entry, ...readJson(inputsFile).map((file) => join(repo, file))];
  return inputs.some((file) => !existsSync(file) || statSync(file).mtimeMs > made);
}

async function bundle(command, workspace) {
  const entry = join(command.dir, command.entry);
  const outdir = join(command.dir, 'dist/bundle');
  const inputsFile = join(outdir, 'inputs.json');
  if (!existsSync(entry)) {
    console.error(`bundle-cli: ${relative(repo, entry)} is missing: build the packages first (npm run build)`);
    process.exit(1);
  }
  if (process.argv.includes('--if-stale') && !stale(entry, inputsFile)) return;
  // Chunk names carry a hash of their content: last build's chunks would otherwise stay beside the new ones.
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: repo,
    entryPoints: { main: entry },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [mcePlugin(workspace, bundledPackages(workspace, command.name), command.name)],
    metafile: true,
    logLevel: 'warning',
  });
  writeFileSync(inputsFile, `${JSON.stringify(Object.keys(result.metafile.inputs), null, 0)}\n`);
}

const workspace = workspacePackages();
for (const command of COMMANDS) await bundle(command, workspace);
