/**
 * The import rules of the packages (docs/architecture.md), checked by `npm run check:imports` in `npm test`:
 * dependencies point down only (core ← provider-native ← client ← worker), a package is used through its name and
 * its exports, never through another package's files, and core does no I/O.
 */
const PKG = (name) => `^packages/${name}/`;

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-package',
      comment: 'core is the bottom: it imports no other mce package',
      severity: 'error',
      from: { path: PKG('core') },
      to: { path: '^packages/(provider-native|client|worker)/' },
    },
    {
      name: 'core-does-no-io',
      comment: 'core has no I/O of its own: no file system, network or process spawning beyond its worker pool',
      severity: 'error',
      from: { path: PKG('core') },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|tls)$' },
    },
    {
      name: 'provider-native-points-down',
      comment: 'the native provider builds on core only',
      severity: 'error',
      from: { path: PKG('provider-native') },
      to: { path: '^packages/(client|worker)/' },
    },
    {
      name: 'client-points-down',
      comment: 'the client loads @mce/worker on demand only (mce worker / enqueue), never by a static import',
      severity: 'error',
      from: { path: PKG('client') },
      to: { path: PKG('worker'), dependencyTypesNot: ['dynamic-import'] },
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
      name: 'ingest-below-store-and-surfaces',
      comment: 'trace reading and the merge rules are below the stores, the API and the CLI',
      severity: 'error',
      from: { path: '^packages/client/src/ingest/' },
      to: { path: '^packages/client/src/(store|api|cli|web|report|receiver|check)/' },
    },
    {
      name: 'store-below-surfaces',
      comment: 'the stores know nothing of the API, the CLI or the pages',
      severity: 'error',
      from: { path: '^packages/client/src/store/' },
      to: { path: '^packages/client/src/(api|cli|web|report|receiver|check)/' },
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
