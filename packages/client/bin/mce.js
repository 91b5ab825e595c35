#!/usr/bin/env node
// The `mce` command: runs the built CLI (npm run build first).
// V8's default young generation: a larger one (--max-semi-space-size=64, as mce-worker runs) saves about a tenth of
// the CPU of a big batch but holds up to 90 MB more while a file is read (docs/engine.md); a long-running `mce serve`
// can be given it through NODE_OPTIONS.
// The bundled CLI (scripts/bundle-cli.mjs) starts in a fraction of the time; a build without it runs dist/ as is.
const { endedOnPurpose, main } = await import('../dist/bundle/main.js').catch((error) => {
  const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && /[\\/]dist[\\/]bundle[\\/]main\.js/.test(String(error.message));
  if (!missing) throw error;
  return import('../dist/cli/main.js');
});

// The event loop can empty while the command still waits (a metric whose promise never settles, with no metric
// timeout): Node would then exit silently with code 13. Say what happened instead.
let done = false;
process.once('exit', (code) => {
  // A worker past its shutdown deadline leaves at once on purpose, having said why: no "never settled" notice.
  if (done || endedOnPurpose()) return;
  process.stderr.write(
    'mce: stopped before the command finished: something it waited for never settled (a metric whose promise never ' +
      'resolves? engine.metric_timeout_ms bounds LLM-judged metrics); nothing was printed or stored for the unfinished work\n',
  );
  if (code === 13 || code === 0) process.exitCode = 1;
});
process.exitCode = await main(process.argv.slice(2));
done = true;
