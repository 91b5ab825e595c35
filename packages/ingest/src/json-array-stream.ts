/**
 * The items of a file that is one JSON list, read as they come rather than parsed whole: a list of ClickHouse rows is
 * the common big export (one row per span), and parsed whole it holds the file's text and every row at once — about
 * four times the file (a text with one character past Latin-1 is two bytes a character). Here only the item being read
 * is text; each is given to JSON.parse on its own. A fault is named at its line and column in the whole file. A list
 * written one item per line is read a line at a time, its items' text not scanned (`lineItem`).
 */
import { errorMessage } from './errors.js';
import { syntaxErrorPosition, type JsonPosition } from './json-position.js';
import { JsonTextError } from './json-values.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Line and column of places in a text read chunk by chunk: the line breaks are counted once (with indexOf), up to the
 * places asked for, in order.
 */
class Lines {
  #line = 1;
  /** Offset (in the whole text) of the first character of the current line. */
  #lineStart = 0;
  /** Offset up to which the line breaks are counted. */
  #counted = 0;
  /**
   * Where the last search stopped past `#counted`: the offset of the line break it found, or the end of the chunk
   * (none before it). The next count starts there instead of searching that stretch again (each item was searched
   * twice: its start, then the next item's).
   */
  #searched: { at: number; found: boolean } | undefined;

  /** The position of offset `at` of the whole text, in `chunk`, which starts at offset `base`. */
  at(chunk: string, base: number, at: number): JsonPosition {
    this.countTo(chunk, base, at);
    return { line: this.#line, column: at - this.#lineStart + 1 };
  }

  /** Counts the line breaks of `chunk` (starting at `base`) before offset `to`. */
  countTo(chunk: string, base: number, to: number): void {
    const searched = this.#searched;
    let nl: number;
    // Offsets are of the whole text: a stretch searched in this chunk is known by its place (an empty chunk has none).
    if (searched?.found && searched.at >= this.#counted && searched.at < base + chunk.length) nl = searched.at - base;
    else if (searched && !searched.found && chunk.length > 0 && searched.at === base + chunk.length) nl = -1;
    else nl = chunk.indexOf('\n', this.#counted - base);
    while (nl !== -1 && base + nl < to) {
      this.#line++;
      this.#lineStart = base + nl + 1;
      nl = chunk.indexOf('\n', nl + 1);
    }
    this.#searched = nl === -1 ? { at: base + chunk.length, found: false } : { at: base + nl, found: true };
    this.#counted = to;
  }
}

/** The position in the file of a fault at `inItem` within an item that starts at `start`. */
const inFile = (start: JsonPosition, inItem: JsonPosition): JsonPosition =>
  inItem.line === 1 ? { line: start.line, column: start.column + inItem.column - 1 } : { line: start.line + inItem.line - 1, column: inItem.column };

/** Trailing backslashes of `text` before `end`, back to `start`. */
function backslashesBefore(text: string, end: number, start: number): number {
  let k = end - 1;
  while (k >= start && text.charCodeAt(k) === BACKSLASH) k--;
  return end - 1 - k;
}

/** One item's text, parsed; a fault is said at its place in the whole text. */
function parseItem(text: string, start: JsonPosition): unknown {
  if (text.trim() === '') throw new JsonTextError('Unexpected token in the list (an empty item)', start);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const at = syntaxErrorPosition(text, err);
    const reason = errorMessage(err).replace(/ at position \d+/, '').replace(/\s*\(line \d+ column \d+\)/, '');
    throw new JsonTextError(reason, at ? inFile(start, at) : start, { cause: err });
  }
}

/** What `lineItem` found: the item and where its line ends, not an item of one line, or a line JSON.parse refused. */
type LineItem = { value: unknown; next: number } | 'not one line' | 'refused';

/**
 * The item starting at `at` when it is the rest of its line, up to a comma ending that line: a list written one item
 * per line (as ClickHouse and the exporters write rows). A raw line break is never inside a JSON string, so the line's
 * end is outside every string; JSON.parse of the text before the comma succeeds only when it is exactly one value, and
 * then that comma is the one the scanner would have found. Found so, the item's text is not scanned at all.
 */
function lineItem(chunk: string, at: number): LineItem {
  const nl = chunk.indexOf('\n', at);
  if (nl === -1) return 'not one line';
  let end = nl;
  while (end > at && isWhite(chunk.charCodeAt(end - 1))) end--;
  if (end <= at + 1 || chunk.charCodeAt(end - 1) !== COMMA) return 'not one line';
  try {
    return { value: JSON.parse(chunk.slice(at, end - 1)) as unknown, next: nl + 1 };
  } catch {
    return 'refused';
  }
}

/**
 * Each item of the list the text is, parsed, with its index. The text must be one list (white space around it); a
 * fault of the list or of an item is a JsonTextError at its place in the whole text.
 */
export async function* jsonListItems(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<{ value: unknown; index: number }> {
  const lines = new Lines();
  let state: 'before' | 'items' | 'after' = 'before';
  let depth = 0; // the current item's nesting
  let inString = false;
  let carriedSlashes = 0; // backslashes ending the previous chunk inside a string
  let pieces: string[] = []; // the current item's text from earlier chunks
  let itemStart: JsonPosition | undefined;
  let index = 0;
  let base = 0;
  // Items are taken a line at a time until one line is not an item JSON.parse accepts (a fault, or another layout):
  // from there the scanner finds every item's end, and names a fault at its place.
  let byLines = true;
  for await (const chunk of chunks) {
    const n = chunk.length;
    let from = 0; // where the current item's text starts in this chunk
    let i = 0;
    while (i < n) {
      if (inString) {
        const q = chunk.indexOf('"', i);
        if (q === -1) break;
        let slashes = backslashesBefore(chunk, q, i);
        if (i === 0 && slashes === q) slashes += carriedSlashes;
        i = q + 1;
        if (slashes % 2 === 0) inString = false;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (state !== 'items' || itemStart === undefined) {
        if (isWhite(c)) {
          i++;
          continue;
        }
        if (state === 'before') {
          if (c !== OPEN_BRACKET) throw new JsonTextError('Expected a list ([)', lines.at(chunk, base, base + i));
          state = 'items';
          i++;
          continue;
        }
        if (state === 'after') throw new JsonTextError('Unexpected non-whitespace character after JSON', lines.at(chunk, base, base + i));
        if (c === CLOSE_BRACKET && index === 0) {
          state = 'after';
          i++;
          continue;
        }
        if (byLines) {
          const found = lineItem(chunk, i);
          if (typeof found === 'object') {
            yield { value: found.value, index: index++ };
            i = found.next;
            continue;
          }
          if (found === 'refused') byLines = false;
        }
        itemStart = lines.at(chunk, base, base + i);
        from = i;
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--;
      else if (depth === 0 && (c === COMMA || c === CLOSE_BRACKET)) {
        const tail = chunk.slice(from, i);
        const text = pieces.length > 0 ? pieces.join('') + tail : tail;
        pieces = [];
        const value = parseItem(text, itemStart);
        itemStart = undefined;
        yield { value, index: index++ };
        if (c === CLOSE_BRACKET) state = 'after';
      }
      i++;
    }
    if (itemStart !== undefined) pieces.push(from === 0 ? chunk : chunk.slice(from));
    carriedSlashes = inString ? backslashesBefore(chunk, n, 0) + (backslashesBefore(chunk, n, 0) === n ? carriedSlashes : 0) : 0;
    lines.countTo(chunk, base, base + n);
    base += n;
  }
  if (state !== 'after') throw new JsonTextError('Unexpected end of JSON input', lines.at('', base, base));
}
