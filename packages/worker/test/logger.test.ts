/** The worker's log lines are bounded: one naming 100,000 unknown sessions was 1.79 MB. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LOG_ITEMS, MAX_LOG_TEXT } from '@mce/core';
import { createLogger } from '../src/logger.js';

describe('worker log lines', () => {
  it('cut long lists and strings, saying how much was left out', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const log = createLogger({ level: 'info', destination: destination as never });
    const unknownSessions = Array.from({ length: 100_000 }, (_, i) => `session-${i}`);
    log.error({ messageKey: 'k', unknownSessions, error: 'e'.repeat(50_000) }, 'unknown session: dead-lettered');
    const line = JSON.parse(lines[0]!) as { unknownSessions: string[]; error: string; msg: string };
    expect(lines[0]!.length).toBeLessThan(5_000);
    expect(line.unknownSessions).toHaveLength(MAX_LOG_ITEMS + 1);
    expect(line.unknownSessions.at(-1)).toBe(`… (+${100_000 - MAX_LOG_ITEMS} more)`);
    expect(line.error).toBe(`${'e'.repeat(MAX_LOG_TEXT)}… (50000 characters)`);
    expect(line.msg).toBe('unknown session: dead-lettered');
  });
});
