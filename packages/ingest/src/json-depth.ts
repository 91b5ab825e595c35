/**
 * How deep a JSON text nests, checked on the text before it is parsed: a value nested thousands of levels deep
 * parses, then overflows the stack of whatever walks it (validation, copying to a worker, a store's serialiser),
 * far from the input that caused it. One limit for every JSON input, named where it is crossed.
 */
import type { JsonPosition } from './json-position.js';

/** Objects and arrays inside one another at most (a session document needs a few dozen). */
export const MAX_JSON_DEPTH = 256;

/** Where `text` first nests deeper than `max` (line and column of the bracket that does), or undefined. */
export function excessDepthAt(text: string, max = MAX_JSON_DEPTH): JsonPosition | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return positionOf(text, i);
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

function positionOf(text: string, index: number): JsonPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}
