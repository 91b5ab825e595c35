import { describe, expect, it } from 'vitest';
import { isoTime, printable, table, truncate, warningLine } from '../../src/cli/format.js';

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

  it('in a table, sizes the columns to the escaped cells, wherever the one needing it is', () => {
    // The escaped cell (6 characters for its bell) is the widest: the column is as wide as it is escaped.
    const rows = [['plain', '1'], ['also plain', '2'], ['bell\u0007!!', '3']];
    expect(table(['name', 'n'], rows).split('\n')).toEqual(['name          n', '────────────  ─', 'plain         1', 'also plain    2', 'bell\\u0007!!  3']);
    expect(table(['name', 'n'], rows.slice(0, 2)).split('\n')).toEqual(['name        n', '──────────  ─', 'plain       1', 'also plain  2']);
  });
});

describe('truncate', () => {
  it('flattens white space to single spaces, trims the ends, and cuts at the length with an ellipsis', () => {
    expect(truncate('one two three', 70)).toBe('one two three');
    expect(truncate('  one\ttwo\n\nthree \u00a0four\ufeff', 70)).toBe('one two three four');
    expect(truncate('one  two', 70)).toBe('one two');
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('ab cd\nef', 5)).toBe('ab c…');
  });
});

describe('warningLine', () => {
  it('puts as much of the place as is known first, as compilers do, and the code last', () => {
    const w = { code: 'duplicate-span' as const, message: 'span a1 (chat) appears twice; the first copy is kept' };
    expect(warningLine({ ...w, file: 'x.json', line: 53, column: 13 })).toBe('x.json:53:13: warning: span a1 (chat) appears twice; the first copy is kept [duplicate-span]');
    expect(warningLine({ ...w, file: 'x.jsonl', line: 3 })).toBe('x.jsonl:3: warning: span a1 (chat) appears twice; the first copy is kept [duplicate-span]');
    expect(warningLine({ ...w, file: 'x.json' })).toBe('x.json: warning: span a1 (chat) appears twice; the first copy is kept [duplicate-span]');
    expect(warningLine(w)).toBe('warning: span a1 (chat) appears twice; the first copy is kept [duplicate-span]');
  });

  it('stays one line a terminal cannot be driven by: control characters, line breaks and tabs from a trace are escapes', () => {
    const w = { code: 'duplicate-span' as const, message: 'span a1 (two\nlines\tand \u001b[2J) appears twice', file: 'x.jsonl', line: 1 };
    expect(warningLine(w)).toBe('x.jsonl:1: warning: span a1 (two\\u000alines\\u0009and \\u001b[2J) appears twice [duplicate-span]');
  });
});
