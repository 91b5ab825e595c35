/**
 * Near-miss values: an argument that is not what the user wrote but one small step from it (`invoice` for
 * `invoices`, `zig-lang` for `ziglang`, the thread `…000600` for `…000500`). Such a value looks grounded to a
 * word-level check, yet names another object than the user's.
 */

import { stem } from './lexical.js';

const PIECES = /[^a-z0-9]+/;

/** A word's base form: stemmed, a final `e` dropped (`stage` and `staging` both `stag`). */
const base = (word: string) => stem(word).replace(/e$/, '');

/** At most one insertion, deletion or substitution turns `a` into `b`. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.length - short.length > 1) return false;
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  // Same length: one substitution; otherwise one character of the longer skipped.
  const rest = short.length === long.length ? i + 1 : i;
  return short.slice(rest) === long.slice(i + 1);
}

/** The words of a text as identifiers are written (lower case, split on anything not a letter or digit). */
export function contextWords(contextLower: string): Set<string> {
  return new Set(contextLower.split(PIECES).filter((w) => w.length > 0));
}

/**
 * Whether `valueLower` (an identifier: no whitespace) misses the user's words by a small step: written without its
 * separators it is one word of theirs (`zig-lang` for `ziglang`; joining their words, `lifetime_spend`, is how
 * identifiers are made), or one of its pieces of four or more characters is one edit (a plural, a digit, a letter)
 * from a word of theirs it is not, or has its base form (`stage` for `staging`). In free text (`inFreeText`: a
 * query, a sentence) plurals and word forms vary freely, so only the separators and an edit of a piece holding a
 * digit count.
 */
export function nearMiss(valueLower: string, words: ReadonlySet<string>, inFreeText = false): boolean {
  const pieces = valueLower.split(PIECES).filter((p) => p.length > 0);
  if (pieces.length === 0) return false;
  const compact = pieces.join('');
  if (pieces.length > 1 && compact.length >= 4 && words.has(compact)) return true;
  for (const piece of pieces) {
    if (piece.length < 4 || words.has(piece)) continue;
    if (inFreeText && !/\d/.test(piece)) continue;
    const own = base(piece);
    for (const w of words) if (w.length >= 4 && (withinOneEdit(piece, w) || (!inFreeText && base(w) === own))) return true;
  }
  return false;
}
