/** -v / -vv / --debug: what the CLI logs at each level (JSON lines on stderr). */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempWorkspace } from './run-cli.js';

const example = fileURLToPath(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url));
const messages = (stderr: string) => stderr.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string } & Record<string, unknown>);

describe('log levels', () => {
  const compute = (flags: string[]) => runCli([...flags, 'compute', '--input', example, '--no-store', '--metrics', 'Duration', '--json'], tempWorkspace());

  it('logs nothing by default, the summary with -v, and what was loaded and each session computed with -vv or --debug', async () => {
    expect((await compute([])).stderr).toBe('');
    expect(messages((await compute(['-v'])).stderr).map((m) => m.msg)).toEqual(['computed']);
    for (const flags of [['-vv'], ['--debug']]) {
      const logged = messages((await compute(flags)).stderr);
      expect(logged.map((m) => [m.level, m.msg]), flags.join(' ')).toEqual([[20, 'client opened'], [20, 'session computed'], [30, 'computed']]);
      expect(logged[0]).toMatchObject({ cache: expect.stringContaining('cache.db') });
      // The providers loaded besides the built-in one: mce's library-backed packages, installed beside it.
      expect((logged[0]?.providers as Array<{ name: string }>).map((p) => p.name).sort()).toEqual(['deepeval', 'opik', 'ragas', 'sdk']);
      expect(logged[1]).toMatchObject({ session: 'weather-001', results: 6, failed: 0, skipped: 0 });
    }
  });
});
