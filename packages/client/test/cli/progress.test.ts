import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return {
    chunks,
    s: Object.assign(
      { isTTY, columns: 120, write: (c: string) => (chunks.push(String(c)), true), cursorTo: () => true, clearLine: () => true, moveCursor: () => true, on: () => undefined, removeListener: () => undefined },
      {},
    ) as unknown as NodeJS.WriteStream,
  };
}

describe('progress bar', () => {
  it('draws rate and ETA on a terminal', () => {
    const { s, chunks } = stream(true);
    const p = createProgress(s);
    p.start(4, 'sessions');
    p.increment(2);
    p.increment(2);
    p.stop();
    const out = chunks.join('');
    expect(out).toMatch(/4\/4 sessions/);
    expect(out).toMatch(/sessions\/s \| ETA/);
  });

  it('writes nothing when stderr is not a terminal, or when disabled (--json)', () => {
    for (const [tty, enabled] of [[false, true], [true, false]] as const) {
      const { s, chunks } = stream(tty);
      const p = createProgress(s, enabled);
      p.start(3, 'files');
      p.increment();
      p.stop();
      expect(chunks).toEqual([]);
    }
  });
});
