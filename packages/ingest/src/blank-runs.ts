/**
 * A JSON text with its long runs of spaces and tabs cut to their first character, and the way back to the original's
 * offsets and columns. The text scanner (jsonc-parser) builds each run of blanks up one character at a time
 * (`value += …`): a body of 20 MB of spaces took it 2 s and 780 MB, and 60 MB ran a 1 GiB heap out. Cut, a run costs
 * one step. A fault is never past the first character of a run (blanks are valid between tokens and spaces inside a
 * string; a tab inside a string is a fault at the first one), and runs hold no line break: line numbers are
 * unchanged, only offsets and columns after a run move.
 */

/** Runs shorter than this are left as they are: indentation never reaches it, and most texts are not copied at all. */
const LONG_RUN = 64;
// The start of a long run only: a quantifier without a bound (`{64,}`) over millions of blanks overflows the regular
// expression engine's stack, so the rest of the run is walked by hand.
const LONG_RUN_START = new RegExp(`[ \\t]{${LONG_RUN}}`, 'g');
const isBlank = (code: number) => code === 0x20 || code === 0x09;

interface Cut {
  /** Offset, in the cut text, of the one character left of the run. */
  at: number;
  /** Characters removed by this cut and every cut before it. */
  removedSoFar: number;
}

export interface BlankRunsCut {
  /** The text to scan: `original` itself when it has no long run. */
  text: string;
  /** The offset in the original text of an offset in `text`. */
  originalOffset(offset: number): number;
  /** The 0-based column in the original text of a place `text` has at (`offset`, 0-based `character` on its line). */
  originalCharacter(offset: number, character: number): number;
}

export function cutBlankRuns(original: string): BlankRunsCut {
  const cuts: Cut[] = [];
  const pieces: string[] = [];
  let removed = 0;
  let copied = 0;
  LONG_RUN_START.lastIndex = 0;
  for (let m = LONG_RUN_START.exec(original); m; m = LONG_RUN_START.exec(original)) {
    let end = m.index + LONG_RUN;
    while (end < original.length && isBlank(original.charCodeAt(end))) end++;
    pieces.push(original.slice(copied, m.index + 1));
    cuts.push({ at: m.index - removed, removedSoFar: removed + (end - m.index - 1) });
    removed += end - m.index - 1;
    copied = end;
    LONG_RUN_START.lastIndex = end;
  }
  const text = cuts.length === 0 ? original : pieces.join('') + original.slice(copied);
  /** Characters removed before `offset` of the cut text: by the runs whose kept space is before it. */
  const removedBefore = (offset: number): number => {
    let lo = 0;
    let hi = cuts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cuts[mid]!.at < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : cuts[lo - 1]!.removedSoFar;
  };
  return {
    text,
    originalOffset: (offset) => offset + removedBefore(offset),
    originalCharacter: (offset, character) => character + removedBefore(offset) - removedBefore(offset - character),
  };
}
