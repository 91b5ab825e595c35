/**
 * The import rules of .dependency-cruiser.cjs (run over the packages by `npm run check:imports` in `npm test`) do
 * refuse what they are for: a tree of small modules breaking one rule each, cruised with the repository's config.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const depcruise = join(repo, 'node_modules/.bin/depcruise');

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mce-import-rules-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const cruise = (dir: string, output: string) =>
  spawnSync(depcruise, ['packages', '--config', join(repo, '.dependency-cruiser.cjs'), '--output-type', output], { cwd: dir, encoding: 'utf8' });

/** The rules broken (from the JSON report) and the exit code of the run `npm run check:imports` makes (its text output). */
function violations(dir: string): { code: number | null; rules: string[] } {
  const report = JSON.parse(cruise(dir, 'json').stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return { code: cruise(dir, 'err').status, rules: report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort() };
}

describe('import rules', () => {
  it('refuse an upward import, a reach into another package, I/O in core, a circle, a static load of an optional store and a dependency of helper', () => {
    const dir = tree({
      'packages/core/src/a.ts': "import { readFileSync } from 'node:fs';\nimport { b } from './b.js';\nexport const a = () => readFileSync('x') && b;\n",
      'packages/core/src/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'packages/core/src/up.ts': "import { w } from '../../worker/src/w.js';\nexport const up = w;\n",
      'packages/worker/src/w.ts': 'export const w = 1;\n',
      'packages/ingest/src/i.ts': "import { s } from '../../store/src/s.js';\nexport const i = s;\n",
      'packages/store/src/s.ts': "import { p } from '../../store-postgres/src/p.js';\nexport const s = p;\n",
      'packages/store-postgres/src/p.ts': 'export const p = 1;\n',
      'packages/helper/src/h.ts': "import { z } from 'zod';\nexport const h = z;\n",
    });
    const { code, rules } = violations(dir);
    expect(code).not.toBe(0);
    expect(rules).toEqual([
      'core-does-no-io: packages/core/src/a.ts → fs',
      'core-points-down: packages/core/src/up.ts → packages/worker/src/w.ts',
      'helper-depends-on-nothing: packages/helper/src/h.ts → zod',
      'ingest-points-down: packages/ingest/src/i.ts → packages/store/src/s.ts',
      'no-circular: packages/core/src/a.ts → packages/core/src/b.ts',
      'no-reaching-into-another-package: packages/core/src/up.ts → packages/worker/src/w.ts',
      'no-reaching-into-another-package: packages/ingest/src/i.ts → packages/store/src/s.ts',
      'no-reaching-into-another-package: packages/store/src/s.ts → packages/store-postgres/src/p.ts',
      'store-loads-on-demand: packages/store/src/s.ts → packages/store-postgres/src/p.ts',
    ]);
  });

  it('let the client load the worker on demand, and a circle made only of type imports pass', () => {
    const dir = tree({
      'packages/client/src/cli/worker.ts': "export const load = () => import('../../../worker/src/w.js');\n",
      'packages/worker/src/w.ts': 'export const w = 1;\n',
      'packages/client/src/config/x.ts': "import type { Y } from './y.js';\nexport type X = { y?: Y };\n",
      'packages/client/src/config/y.ts': "import type { X } from './x.js';\nexport type Y = { x?: X };\n",
    });
    // The dynamic import still reaches into the worker's files by path: only that rule is broken, not the direction.
    const { code, rules } = violations(dir);
    expect(code).not.toBe(0);
    expect(rules).toEqual(['no-reaching-into-another-package: packages/client/src/cli/worker.ts → packages/worker/src/w.ts']);
  });
});
