/** The CLI's logger loads pino at its first line at or above its level, and then logs as pino does. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyLogger } from '../../src/cli/lazy-logger.js';

/** A lazy logger at `level` whose lines go to `lines`, and how many times it was made. */
function recorded(level: 'debug' | 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const made = { count: 0 };
  const log = lazyLogger(level, () => {
    made.count++;
    return pino({ level, base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  });
  return { log, lines, made };
}

describe('lazyLogger', () => {
  it('makes no logger for lines below its level', () => {
    const { log, lines, made } = recorded('warn');
    log.info({ sessions: 3 }, 'computed');
    log.debug('details');
    expect([made.count, lines]).toEqual([0, []]);
  });

  it('makes the logger once, at the first line at its level, and writes every line from then on', () => {
    const { log, lines, made } = recorded('warn');
    log.warn({ failed: 2 }, 'some metrics failed');
    log.error('broken');
    log.info('not written: below warn');
    expect(made.count).toBe(1);
    expect(lines.map(({ level, msg, failed }) => ({ level, msg, failed }))).toEqual([
      { level: 40, msg: 'some metrics failed', failed: 2 },
      { level: 50, msg: 'broken', failed: undefined },
    ]);
  });

  it('is the made logger for everything else: its level, a child, a level set', () => {
    const { log, lines } = recorded('info');
    expect(log.level).toBe('info');
    log.child({ worker: 'w1' }).info('started');
    log.level = 'error';
    log.warn('not written: the level is error now');
    expect(lines.map(({ msg, worker }) => ({ msg, worker }))).toEqual([{ msg: 'started', worker: 'w1' }]);
  });
});
