import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTimeText, toEpochMs } from '../src/rows.js';

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

  it('a time a user types is epoch ms or ISO 8601 only: other forms Date.parse reads in the local zone are refused', () => {
    const utc = Date.UTC(2025, 11, 1, 8, 0, 0);
    expect(parseTimeText(' 2025-12-01T08:00:00 ')).toBe(utc);
    expect(parseTimeText('2025-12-01 08:00')).toBe(utc);
    expect(parseTimeText('2025-12-01t08:00:00z')).toBe(utc);
    expect(parseTimeText('2025-12-01T10:00:00+0200')).toBe(utc);
    expect(parseTimeText('2025-12-01')).toBe(Date.UTC(2025, 11, 1));
    expect(parseTimeText(String(utc))).toBe(utc);
    for (const text of ['Dec 1 2025', '12/01/2025', '2025-12-01T08:00:00+02', '', '1e12', '2025-13-01']) {
      expect(() => parseTimeText(text)).toThrow(`not a time: ${text}`);
    }
  });
});
