/**
 * Long runs of blanks are cut before the text scanner sees them (it grows each run a character at a time), and the
 * places it finds are given back in the original text: the same line and column as without the cut.
 */
import { describe, expect, it } from 'vitest';
import { cutBlankRuns } from '../src/blank-runs.js';
import { locateInJson, syntaxErrorPosition } from '../src/json-position.js';

const spaces = (n: number) => ' '.repeat(n);

describe('cutBlankRuns', () => {
  it('leaves a text without a run of 64 blanks as it is, and maps offsets one to one', () => {
    const text = `{\n${spaces(63)}"a": 1\n}`;
    const cut = cutBlankRuns(text);
    expect(cut.text).toBe(text);
    expect(cut.originalOffset(10)).toBe(10);
    expect(cut.originalCharacter(10, 3)).toBe(3);
  });

  it('cuts each run to its first blank and maps an offset after it back past the run', () => {
    const text = `[1,${spaces(100)}2,\t${'\t'.repeat(70)}3]`;
    const cut = cutBlankRuns(text);
    expect(cut.text).toBe('[1, 2,\t3]');
    // Offsets in the cut text → the original's: the '2' (cut 4), the '3' (cut 7), the end (cut 9).
    expect([4, 7, 9].map((o) => cut.originalOffset(o))).toEqual([text.indexOf('2'), text.indexOf('3'), text.length]);
    // A place before any run keeps its offset; the blank kept of a run stands where the run began.
    expect(cut.originalOffset(1)).toBe(1);
    expect(cut.originalOffset(3)).toBe(3);
  });
});

describe('places in a text with long runs of blanks', () => {
  it('names the column of a fault after a run as it is in the original text', () => {
    const text = `{\n  "a": 1,\n${spaces(200)}"b": x\n}`;
    const at = syntaxErrorPosition(text, new Error('Unexpected token'));
    expect(at).toEqual({ line: 3, column: 200 + 6 });
  });

  it('names a string holding a run of tabs (control characters) where a short run would be named', () => {
    const at = (tabs: number) => syntaxErrorPosition(`{"a": 1, "b": "x${'\t'.repeat(tabs)}y"}`, new Error('Bad control character in string literal'));
    expect(at(100)).toEqual(at(2));
    expect(at(100)).toEqual({ line: 1, column: 15 }); // the scanner names the string that holds them
  });

  it('names the end of a body of blanks only, without the scanner building the run (20 MB)', () => {
    const text = spaces(20 * 1024 * 1024);
    const heapBefore = process.memoryUsage().heapUsed;
    const at = syntaxErrorPosition(text, new Error('Unexpected end of JSON input'));
    expect(at).toEqual({ line: 1, column: text.length + 1 });
    // Uncut, the scanner's run was a rope of 20 million one-character pieces: hundreds of MB.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(100 * 1024 * 1024);
  });

  it('finds keys and values after runs on the same line and on later lines where they are', () => {
    const text = `{"x": 1,${spaces(80)}"y": [true,${'\t'.repeat(65)}null],\n${spaces(90)}"z": "${spaces(70)}v"}`;
    const found = locateInJson(text, [{ path: ['y'], key: true }, { path: ['y', 1] }, { path: ['z'], key: true }, { path: ['z'] }]);
    const column = (needle: string, from = 0) => {
      const offset = text.indexOf(needle, from);
      return offset - (text.lastIndexOf('\n', offset) + 1) + 1;
    };
    expect(found).toEqual([
      { line: 1, column: column('"y"') },
      { line: 1, column: column('null') },
      { line: 2, column: column('"z"') },
      { line: 2, column: column('"', text.indexOf('"z"') + 4) },
    ]);
  });
});
