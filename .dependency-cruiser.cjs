/**
 * The import rules of the packages (docs/architecture.md), checked by `npm run check:imports` in `npm test`:
 * dependencies point down only (the table below), a package is used through its name and its exports, never through
 * another package's files, helper depends on nothing, and core does no I/O.
 */
const PKG = (name) => `^packages/${name}/`;

/** What each package may import (static imports); `dynamic`: loaded on demand only, never by a static import. */
const LAYERS = {
  core: { uses: [] },
  helper: { uses: [] },
  'provider-native': { uses: ['core'] },
  'provider-ragas': { uses: ['core', 'provider-native'] },
  'provider-sdk': { uses: ['core', 'provider-native'] },
  'provider-deepeval': { uses: ['core', 'provider-native'] },
  'provider-opik': { uses: ['core', 'provider-native'] },
  ingest: { uses: ['core'] },
  store: { uses: ['core', 'ingest'], dynamic: ['store-postgres', 'store-neo4j'] },
  'store-postgres': { uses: ['core', 'ingest', 'store'] },
  'store-neo4j': { uses: ['core', 'ingest', 'store'] },
  client: { uses: ['core', 'helper', 'provider-native', 'ingest', 'store'], dynamic: ['worker', 'store-postgres', 'store-neo4j', 'legacy'] },
  worker: { uses: ['core', 'provider-native', 'ingest', 'store', 'store-postgres', 'client'] },
  legacy: { uses: ['core', 'provider-native', 'ingest', 'client'] },
};
const ALL = Object.keys(LAYERS);
const alternatives = (names) => `^packages/(${names.join('|')})/`;

/** One rule per package: nothing outside its list statically, nothing outside list and dynamic list at all. */
const layerRules = Object.entries(LAYERS).flatMap(([name, { uses, dynamic = [] }]) => {
  const never = ALL.filter((other) => other !== name && !uses.includes(other) && !dynamic.includes(other));
  const rules = [];
  if (never.length > 0) {
    rules.push({
      name: `${name}-points-down`,
      comment: `${name} builds on ${uses.length ? uses.join(', ') : 'no other mce package'}`,
      severity: 'error',
      from: { path: PKG(name) },
      to: { path: alternatives(never) },
    });
  }
  if (dynamic.length > 0) {
    rules.push({
      name: `${name}-loads-on-demand`,
      comment: `${name} loads ${dynamic.join(', ')} on demand only (an optional package, or a heavy one), never by a static import`,
      severity: 'error',
      from: { path: PKG(name) },
      to: { path: alternatives(dynamic), dependencyTypesNot: ['dynamic-import'] },
    });
  }
  return rules;
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'helper-depends-on-nothing',
      comment: 'helper is for third parties to build on without pulling anything in: it imports nothing but its own files',
      severity: 'error',
      from: { path: PKG('helper') },
      to: { pathNot: PKG('helper') },
    },
    {
      name: 'core-does-no-io',
      comment: 'core has no I/O of its own: no file system, network or process spawning beyond its worker pool',
      severity: 'error',
      from: { path: PKG('core') },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|tls)$' },
    },
    {
      name: 'no-reaching-into-another-package',
      comment: "another package's files are its internals: import it by its name (@mce/x), which its exports define",
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      // A relative path into another package's folder ('local'); by name the package's exports decide what is public.
      to: { path: '^packages/([^/]+)/', pathNot: '^packages/$1/', dependencyTypes: ['local'] },
    },
    {
      name: 'no-circular',
      comment: 'a module circle makes load order matter; break it by moving the shared part down (type-only imports vanish when compiled: a circle through one is no circle)',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['source', 'import', 'require', 'node', 'default'] },
    combinedDependencies: false,
  },
};
