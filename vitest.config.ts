import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      // Before '@mce/core': an alias is a prefix, and the subpath is a file of its own.
      '@mce/core/errors': fileURLToPath(new URL('./packages/core/src/errors.ts', import.meta.url)),
      '@mce/core': src('core'),
      '@mce/provider-native': src('provider-native'),
      '@mce/provider-ragas': src('provider-ragas'),
      '@mce/provider-sdk': src('provider-sdk'),
      '@mce/provider-deepeval': src('provider-deepeval'),
      '@mce/provider-opik': src('provider-opik'),
      '@mce/ingest': src('ingest'),
      '@mce/store/adapter': fileURLToPath(new URL('./packages/store/src/adapter.ts', import.meta.url)),
      '@mce/store/conformance': fileURLToPath(new URL('./packages/store/src/conformance/index.ts', import.meta.url)),
      '@mce/store-postgres': src('store-postgres'),
      '@mce/store-neo4j': src('store-neo4j'),
      '@mce/store': src('store'),
      '@mce/client': src('client'),
      '@mce/worker': src('worker'),
      '@mce/legacy/mount': fileURLToPath(new URL('./packages/legacy/src/mount.ts', import.meta.url)),
      '@mce/legacy': src('legacy'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // The bundled `mce` command, rebuilt when stale: tests start it as users do.
    globalSetup: ['test-support/bundle-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Store and broker suites share one PostgreSQL and one RabbitMQ; files run in parallel, each in its own schema/queue.
    pool: 'forks',
    // The JSON report lets .ci/run print one plain "N passed, N failed" line at the end.
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
    // Tests use the committed price table; a background refresh from the network must never change their prices.
    env: { MODEL_PRICES_REFRESH: 'false' },
  },
});
