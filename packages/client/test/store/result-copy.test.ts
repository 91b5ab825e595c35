import { describe, expect, it } from 'vitest';
import { byKey, copyLine, text } from '../../src/store/postgres/result-copy.js';
import { metricResult } from './support/sessions.js';

describe('PostgreSQL COPY rows', () => {
  it('sorts results in the table key order, (session_id, id), one session or several', () => {
    const one = ['c', 'a', 'b'].map((id) => metricResult(id, 's1'));
    expect(one.sort(byKey).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    const mixed = [metricResult('a', 's2'), metricResult('c', 's1'), metricResult('b', 's2'), metricResult('a', 's1')];
    expect(mixed.sort(byKey).map((r) => `${r.sessionId}/${r.id}`)).toEqual(['s1/a', 's1/c', 's2/a', 's2/b']);
  });

  it('escapes the characters of COPY text format and writes NULL for no details', () => {
    expect(text('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(text('plain')).toBe('plain');
    const line = copyLine({ ...metricResult('r1', 's1'), reasoning: 'two\tcolumns' });
    expect(line.endsWith('\\N\n')).toBe(true);
    expect(line.split('\t')[3]).toBe('two\\tcolumns');
  });
});
