/** The error base: every error mce throws on purpose has a kind, and errorKind tells the kind of anything thrown. */
import { describe, expect, it } from 'vitest';
import { MetricSelectionError, MetricTimeoutError, SessionNotFoundError, EngineOptionError, MceError, errorKind, isConnectionError } from '../src/index.js';

class Busy extends MceError {
  readonly kind = 'conflict' as const;
}

describe('errorKind', () => {
  it("is an MceError's own kind", () => {
    expect(errorKind(new SessionNotFoundError(['s1']))).toBe('not-found');
    expect(errorKind(new MetricSelectionError([{ metric: 'X', level: 'Session', problem: 'unknown' }]))).toBe('bad-input');
    expect(errorKind(new EngineOptionError('MCE_ENGINE_MAX_WORKERS', 'a positive integer', 'x'))).toBe('bad-input');
    expect(errorKind(new MetricTimeoutError(10))).toBe('unavailable');
    expect(errorKind(new Busy('shutting down'))).toBe('conflict');
  });

  it('is unavailable for a connection failure, however deeply wrapped, and internal for anything else', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(errorKind(refused)).toBe('unavailable');
    expect(errorKind(new Error('write failed', { cause: new AggregateError([new Error('a'), refused]) }))).toBe('unavailable');
    expect(errorKind(Object.assign(new Error('too many clients'), { code: '53300' }))).toBe('unavailable');
    expect(errorKind(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe('internal');
    expect(errorKind(new TypeError('x is undefined'))).toBe('internal');
    expect(errorKind('a string')).toBe('internal');
    expect(errorKind(undefined)).toBe('internal');
    expect(isConnectionError({ code: 'EAI_AGAIN' })).toBe(true);
  });

  it('reads the kind of an error whose class comes from another copy of core, but only a known kind', () => {
    const foreign = Object.assign(new Error('bad field'), { kind: 'bad-input' });
    expect(errorKind(foreign)).toBe('bad-input');
    expect(errorKind(Object.assign(new Error('odd'), { kind: 'weird' }))).toBe('internal');
    expect(errorKind({ kind: 'bad-input' })).toBe('internal'); // not an Error at all
  });
});
