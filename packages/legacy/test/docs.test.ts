/** docs/legacy.md's table of metric names is kept in step with the mapping the routes use. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LEGACY_NAMES } from '../src/index.js';

const doc = readFileSync(new URL('../../../docs/legacy.md', import.meta.url), 'utf8');

describe('docs/legacy.md', () => {
  it('has a row for every old metric name, and no row for a name the mapping lacks', () => {
    const section = doc.slice(doc.indexOf('## Metric names'), doc.indexOf('## Where mce'));
    const rows = [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.keys(LEGACY_NAMES).sort());
  });
});
