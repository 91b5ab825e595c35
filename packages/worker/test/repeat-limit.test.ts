/** A failure repeating for every message is one line per window and one summary, not one line each. */
import { describe, expect, it } from 'vitest';
import { RepeatLimit } from '../src/repeat-limit.js';
import { capturedLog, WARN } from './support/log-lines.js';

describe('RepeatLimit', () => {
  it('writes the first line of a kind, counts the next ones and sums them up when the window ends', () => {
    const { lines, logger } = capturedLog();
    const repeats = new RepeatLimit(logger, 60_000);
    for (let i = 0; i < 500; i++) repeats.error('move', { messageKey: `m${i}` }, 'could not publish to the retry queue');
    repeats.warn('other', {}, 'consumer error');
    expect(lines.map((line) => [line.msg, line.messageKey])).toEqual([
      ['could not publish to the retry queue', 'm0'],
      ['consumer error', undefined],
    ]);
    repeats.flush();
    expect(lines.slice(2).map((line) => [line.level, line.msg, line.repeated])).toEqual([
      [50, 'could not publish to the retry queue (499 more like it since)', 499],
    ]);
    // A new window: the next failure is written again.
    repeats.error('move', { messageKey: 'm500' }, 'could not publish to the retry queue');
    expect(lines.at(-1)?.messageKey).toBe('m500');
    repeats.flush();
    expect(lines.filter((line) => line.level >= WARN)).toHaveLength(4);
  });

  it('ends the window by itself', async () => {
    const { lines, logger } = capturedLog();
    const repeats = new RepeatLimit(logger, 20);
    repeats.warn('k', {}, 'down');
    repeats.warn('k', {}, 'down');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.map((line) => line.msg)).toEqual(['down', 'down (1 more like it since)']);
  });
});
