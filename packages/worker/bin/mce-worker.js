#!/usr/bin/env -S node --max-semi-space-size=64
// The `mce-worker` command: runs the built worker (npm run build first).
// A larger young generation: metric computation allocates many short-lived results (see docs/engine.md).
// The bundled worker (scripts/bundle-cli.mjs) starts in a fraction of the time; a build without it runs dist/ as is.
const { main } = await import('../dist/bundle/main.js').catch((error) => {
  const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && /[\\/]dist[\\/]bundle[\\/]main\.js/.test(String(error.message));
  if (!missing) throw error;
  return import('../dist/cli.js');
});

process.exit(await main(process.argv.slice(2)));
