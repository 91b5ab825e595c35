/**
 * The worker's log lines are bounded (one naming 100,000 unknown sessions was 1.79 MB) and hold no secret of its
 * environment, whatever field or error it got into.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LOG_ITEMS, MAX_LOG_TEXT } from '@mce/core';
import { logLineRedactor } from '@mce/client';
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

  it('hold no secret of the environment: the judge key, a store password, an API key, a URL password, in a field or an error', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const env = { OPENAI_API_KEY: 'sk-judge-secret-123', PGPASSWORD: 'pg"quoted\\pw', MCE_API_KEYS: 'ci:ci-key-0123456789abcdef:read' };
    const log = createLogger({ level: 'info', destination: destination as never, redact: logLineRedactor(env) });
    const echoed = new Error('401 from the judge: Incorrect API key provided: sk-judge-secret-123', { cause: new Error('amqp://guest:hunter2@broker:5672 refused') });
    log.error({ err: echoed, store: 'password pg"quoted\\pw', header: 'Bearer ci-key-0123456789abcdef' }, 'batch failed: sk-judge-secret-123');
    const text = lines.join('');
    for (const secret of ['sk-judge-secret-123', 'pg"quoted', 'hunter2', 'ci-key-0123456789abcdef']) expect(text).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as { msg: string; store: string; err: { message: string } };
    expect([line.msg, line.store, line.err.message]).toEqual(['batch failed: ***', 'password ***', '401 from the judge: Incorrect API key provided: ***: amqp://guest:***@broker:5672 refused']);
  });
});
