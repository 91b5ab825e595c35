import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/cli/format.js';

describe('isoTime', () => {
  it('shows epoch milliseconds as ISO 8601, and a time no date can hold as the number (a listing never fails on it)', () => {
    expect(isoTime(1767261600020)).toBe('2026-01-01T10:00:00.020Z');
    expect(isoTime(9e15)).toBe('9000000000000000 (not a date)');
  });
});
