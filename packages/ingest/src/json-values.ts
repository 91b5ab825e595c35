/**
 * JSON values written back to back in one file (Python's ConsoleSpanExporter prints each span as a pretty-printed
 * object, one after the other; some tools append one document per run). JSON.parse names the offset where a second
 * value begins ("Unexpected non-whitespace character after JSON at position N"): each value is parsed up to there,
 * so the text is scanned about twice, by V8's own parser, whatever the values' sizes.
 */
import { errorMessage } from './errors.js';
import { syntaxErrorPosition, type JsonPosition } from './json-position.js';

/** The values of a text holding more than one JSON value, in order. */
export class ConcatenatedValues {
  constructor(readonly values: unknown[]) {}
}

/** A JSON syntax error of the text, at its line and column in the whole text. */
export class JsonTextError extends Error {
  constructor(
    readonly reason: string,
    readonly at: JsonPosition | undefined,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

const SECOND_VALUE = /non-whitespace character after JSON at position (\d+)/;

/** One JSON value, or several back to back (a ConcatenatedValues); a JsonTextError at the first fault. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const end = secondValueAt(err);
    if (end === undefined) throw syntaxError(text, 0, err);
    return new ConcatenatedValues(parseValues(text, end));
  }
}

function secondValueAt(err: unknown): number | undefined {
  const m = SECOND_VALUE.exec(errorMessage(err));
  return m ? Number(m[1]) : undefined;
}

/** Every value of `text`, the first of which ends at `firstEnd`. */
function parseValues(text: string, firstEnd: number): unknown[] {
  const values: unknown[] = [JSON.parse(text.slice(0, firstEnd))];
  let start = skipWhite(text, firstEnd);
  while (start < text.length) {
    const rest = text.slice(start);
    try {
      values.push(JSON.parse(rest));
      break;
    } catch (err) {
      const end = secondValueAt(err);
      if (end === undefined) throw syntaxError(text, start, err);
      values.push(JSON.parse(rest.slice(0, end)));
      start = skipWhite(text, start + end);
    }
  }
  return values;
}

/** JSON's white space only: anything else starts the next value. */
function skipWhite(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
  }
  return i;
}

/** The error of a value starting at `offset`, its position counted in the whole text. */
function syntaxError(text: string, offset: number, err: unknown): JsonTextError {
  const piece = offset === 0 ? text : text.slice(offset);
  const inPiece = syntaxErrorPosition(piece, err);
  if (offset === 0) return new JsonTextError(errorMessage(err), inPiece, { cause: err });
  // V8 counts the position in the piece parsed: said in the whole text's lines and columns instead.
  const reason = errorMessage(err).replace(/ at position \d+/, '').replace(/\s*\(line \d+ column \d+\)/, '');
  if (inPiece === undefined) return new JsonTextError(reason, undefined, { cause: err });
  const before = syntaxErrorPosition(text, new Error(`at position ${offset}`))!;
  const at = inPiece.line === 1 ? { line: before.line, column: before.column + inPiece.column - 1 } : { line: before.line + inPiece.line - 1, column: inPiece.column };
  return new JsonTextError(reason, at, { cause: err });
}
