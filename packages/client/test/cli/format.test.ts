import { describe, expect, it } from 'vitest';
import { isoTime, printable, table } from '../../src/cli/format.js';

describe('isoTime', () => {
  it('shows epoch milliseconds as ISO 8601, and a time no date can hold as the number (a listing never fails on it)', () => {
    expect(isoTime(1767261600020)).toBe('2026-01-01T10:00:00.020Z');
    expect(isoTime(9e15)).toBe('9000000000000000 (not a date)');
  });
});

describe('printable', () => {
  it('shows control characters from traces as escapes, so a span name cannot drive the terminal', () => {
    expect(printable('ok\u001b]52;c;ZXZpbA==\u0007 name\u001b[8m')).toBe('ok\\u001b]52;c;ZXZpbA==\\u0007 name\\u001b[8m');
    expect(printable('tab\tand\nnewline and é')).toBe('tab\tand\nnewline and é');
    expect(table(['a'], [['x\u001b[2Jy']])).toContain('x\\u001b[2Jy');
  });
});
