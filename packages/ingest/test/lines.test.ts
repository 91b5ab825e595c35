/** Streaming lines: long lines spanning many chunks, `\r\n` split across chunks. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLines } from '../src/lines.js';

const dir = mkdtempSync(join(tmpdir(), 'mce-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lines(content: string, chunkBytes: number): Promise<string[]> {
  const p = join(dir, 'f.txt');
  writeFileSync(p, content);
  const out: string[] = [];
  for await (const l of readLines(p, chunkBytes)) out.push(l);
  return out;
}

describe('readLines', () => {
  it('splits on \\n, drops one trailing \\r, keeps empty lines, also across chunk boundaries', async () => {
    const content = 'ab\r\n\r\n\ncd\r\r\nlast\r';
    const expected = ['ab', '', '', 'cd\r', 'last'];
    for (const chunkBytes of [1, 2, 3, 5, 64]) expect(await lines(content, chunkBytes)).toEqual(expected);
  });

  it('a line spanning thousands of chunks is joined once, not copied again per chunk', async () => {
    const long = 'x'.repeat(4 << 20);
    // Re-joining the partial line for every chunk took seconds here; no timing assertion: such a regression runs past
    // the test runner's timeout.
    const out = await lines(`${long}\r\nshort\n`, 1024);
    expect(out.map((l) => l.length)).toEqual([long.length, 5]);
  });
});
