import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toEpochMs } from '../../src/store/rows.js';

describe('toEpochMs (listing filters --from / --to, REST from / to)', () => {
  // A zone other than UTC, so that reading the local zone would show (Node applies a changed TZ at once).
  const zone = process.env.TZ;
  beforeEach(() => {
    process.env.TZ = 'America/New_York';
  });
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('reads an ISO date-time without a zone as UTC, like a date alone and like every listing shows times', () => {
    expect(new Date(Date.UTC(2025, 11, 1)).getTimezoneOffset()).toBe(300);
    const utc = Date.UTC(2025, 11, 1, 8, 0, 0);
    expect(toEpochMs('2025-12-01T08:00:00')).toBe(utc);
    expect(toEpochMs('2025-12-01T08:00')).toBe(utc);
    expect(toEpochMs('2025-12-01T08:00:00.250')).toBe(utc + 250);
    expect(toEpochMs('2025-12-01T08:00:00Z')).toBe(utc);
    expect(toEpochMs('2025-12-01T09:00:00+01:00')).toBe(utc);
    expect(toEpochMs('2025-12-01')).toBe(Date.UTC(2025, 11, 1));
    expect(toEpochMs(String(utc))).toBe(utc);
    expect(() => toEpochMs('yesterday')).toThrow('not a time: yesterday');
  });
});
