import { describe, expect, it } from 'vitest';
import { isConnectionError } from '@mce/worker';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('isConnectionError', () => {
  it('recognises a peer out of reach: network error codes, and PostgreSQL connection, resource and shutdown states', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']) {
      expect(isConnectionError(coded(code)), code).toBe(true);
    }
    for (const sqlstate of ['08006', '08001', '53300', '53100', '57P01', '57P03']) {
      expect(isConnectionError(coded(sqlstate)), sqlstate).toBe(true);
    }
  });

  it('looks through causes and aggregated errors (a connection tried on several addresses)', () => {
    expect(isConnectionError(new Error('flush failed', { cause: coded('ECONNRESET') }))).toBe(true);
    expect(isConnectionError(new AggregateError([new Error('x'), coded('ECONNREFUSED')], 'connect failed'))).toBe(true);
  });

  it('takes anything else for a failure of the batch itself', () => {
    expect(isConnectionError(new Error('store unreachable'))).toBe(false);
    for (const sqlstate of ['22P02', '23505', '57014', '0A000', '5300']) expect(isConnectionError(coded(sqlstate)), sqlstate).toBe(false);
    expect(isConnectionError(coded('ERR_INVALID_ARG_TYPE'))).toBe(false);
    expect(isConnectionError('ECONNREFUSED')).toBe(false);
    expect(isConnectionError(undefined)).toBe(false);
    const loop: Error & { cause?: unknown } = new Error('loop');
    loop.cause = loop;
    expect(isConnectionError(loop)).toBe(false);
  });
});

describe('isOutage', () => {
  it('is the unavailable kind: a connection failure, a locked SQLite store, an unavailable MceError; not a refused batch', async () => {
    const { isOutage } = await import('../src/failure.js');
    const { SessionNotFoundError, MetricTimeoutError } = await import('@mce/core');
    expect(isOutage(coded('ECONNREFUSED'))).toBe(true);
    expect(isOutage(coded('SQLITE_BUSY', 'database is locked'))).toBe(true);
    expect(isOutage(new MetricTimeoutError(5))).toBe(true);
    expect(isOutage(new SessionNotFoundError(['s']))).toBe(false);
    expect(isOutage(coded('23505', 'duplicate key'))).toBe(false);
    expect(isOutage(new Error('a session the store refuses'))).toBe(false);
  });
});
