/**
 * Where places of a JSON document are in its text (line and column), found by their JSON path. Documents are parsed
 * with JSON.parse, which keeps no positions; when there is something to report about a place (a field of the wrong
 * type, a missing one, an unknown one, a span skipped or found twice), the text is scanned again here, once for all the
 * places of that report. A document read without a fault is never scanned twice.
 */
import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import { cutBlankRuns } from './blank-runs.js';
import { errorMessage, type IngestWarning, type WarningSink } from './errors.js';
import { readText } from './text.js';

// The text scanner is loaded when a document first has something to report, not with the readers: most reads have
// nothing to report, and loading it cost 6–13 ms of every `mce compute --input`.
const require = createRequire(import.meta.url);
let scanner: typeof Jsonc | undefined;
const jsonc = (): typeof Jsonc => (scanner ??= require('jsonc-parser') as typeof Jsonc);

/** Keys and list positions from the document's root, e.g. `['sessions', 0, 'llmCalls', 3, 'startTime']`. */
export type JsonPath = readonly (string | number)[];

/** 1-based line and column (in UTF-16 code units, as editors count them for most text). */
export interface JsonPosition {
  line: number;
  column: number;
}

/** A place to find: the value at `path`, or with `key` the field's name (an unknown field is named by its key). */
export interface JsonPlace {
  path: JsonPath;
  key?: boolean;
}

/** The text the way the readers parse it: a leading byte order mark is no part of it. */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * The position of each place in `text` (a JSON document that JSON.parse accepted): of its key or value; of the
 * nearest enclosing value that is there when the place is not (the object that lacks a required field); undefined
 * when not even the root is (the text is not that document), and for no place. A key written twice is found where
 * JSON.parse takes it from: the last time. The text is not scanned when no place is asked for.
 */
export function locateInJson(text: string, places: readonly (JsonPlace | undefined)[]): (JsonPosition | undefined)[] {
  const wanted = places.filter((p) => p !== undefined);
  if (wanted.length === 0) return places.map(() => undefined);
  const id = (path: JsonPath) => JSON.stringify(path);
  // Every value on the way to a place is recorded; the others (most of a big document) are skipped unrecorded.
  const onTheWay = new Set<string>();
  const keysWanted = new Set<string>();
  for (const { path, key } of wanted) {
    for (let n = 0; n <= path.length; n++) onTheWay.add(id(path.slice(0, n)));
    if (key) keysWanted.add(id(path));
  }
  const values = new Map<string, JsonPosition>();
  const keys = new Map<string, JsonPosition>();
  const cut = cutBlankRuns(text);
  const at = (offset: number, line: number, character: number): JsonPosition => ({ line: line + 1, column: cut.originalCharacter(offset, character) + 1 });
  /** Records a value that is on the way; false (do not look inside) for one that is not. */
  const value = (offset: number, line: number, character: number, path: () => Jsonc.JSONPath): boolean => {
    const p = id(path());
    if (!onTheWay.has(p)) return false;
    values.set(p, at(offset, line, character));
    return true;
  };
  // The scanner recurses: in a text nested thousands of levels deep it overflows; the places found until then stand.
  withinStack(() => jsonc().visit(cut.text, {
    onObjectBegin: (offset, _length, line, character, path) => value(offset, line, character, path),
    onArrayBegin: (offset, _length, line, character, path) => value(offset, line, character, path),
    // Given, though there is nothing to do at an end: without them, the library never stops skipping an object or list.
    onObjectEnd: () => undefined,
    onArrayEnd: () => undefined,
    onLiteralValue: (_value, offset, _length, line, character, path) => void value(offset, line, character, path),
    onObjectProperty: (name, offset, _length, line, character, path) => {
      if (keysWanted.size === 0) return;
      const p = id([...path(), name]);
      if (keysWanted.has(p)) keys.set(p, at(offset, line, character));
    },
  }, { disallowComments: true }));
  return places.map((place) => {
    if (place === undefined) return undefined;
    const { path, key } = place;
    if (key) {
      const found = keys.get(id(path));
      if (found) return found;
    }
    for (let n = path.length; n >= 0; n--) {
      const found = values.get(id(path.slice(0, n)));
      if (found) return found;
    }
    return undefined;
  });
}

/**
 * The positions of places in one line of a JSON Lines file (`text`, the line's document): on line `line`, at the column
 * found in the text. None for a place not found, or found past a bare CR (JSON white space, but a line break to the
 * scanner: its column would be counted from there).
 */
export function locateOnLine(text: string, line: number, places: readonly (JsonPlace | undefined)[]): (JsonPosition | undefined)[] {
  return locateInJson(text, places).map((at) => (at?.line === 1 ? { line, column: at.column } : undefined));
}

/**
 * Line and column (1-based) of the fault JSON.parse threw `err` for: the offset its message names ("… at position
 * 617"), or, where V8's message names none ("Unexpected token ','"), the first fault a strict JSON scanner finds.
 */
export function syntaxErrorPosition(text: string, err: unknown): JsonPosition | undefined {
  const match = /at position (\d+)/.exec(errorMessage(err));
  const offset = match ? Number(match[1]) : firstSyntaxError(text);
  if (offset === undefined) return undefined;
  const lines = text.slice(0, Math.min(offset, text.length)).split('\n');
  return { line: lines.length, column: (lines.at(-1) as string).length + 1 };
}

function firstSyntaxError(text: string): number | undefined {
  const errors: Jsonc.ParseError[] = [];
  const cut = cutBlankRuns(text);
  withinStack(() => jsonc().parse(cut.text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false }));
  return errors[0] === undefined ? undefined : cut.originalOffset(errors[0].offset);
}

/** Runs `scan`; a stack overflow (a text nested too deeply for a recursive scanner) ends it early, nothing more. */
function withinStack(scan: () => unknown): void {
  try {
    scan();
  } catch (error) {
    if (!(error instanceof RangeError && /call stack/i.test(error.message))) throw error;
  }
}

/** ` (line N, column M)`, or '' when the place was not found: how a message names a place of a whole document. */
export const positionText = (at: JsonPosition | undefined): string => (at ? ` (line ${at.line}, column ${at.column})` : '');

/** The text of a whole-document file, read again to find places in it; undefined when it cannot be read any more. */
export async function documentText(file: string): Promise<string | undefined> {
  try {
    return withoutBom(await readText(file));
  } catch {
    return undefined;
  }
}

/**
 * Warnings about places of one JSON document, waiting for their line and column: its text is scanned once, for all of
 * them, only when there is such a warning.
 */
export class PendingPositions {
  readonly #pending: { warning: IngestWarning; place: JsonPlace }[] = [];

  /**
   * Adds `warning` to `warnings`; when it is kept there and has a place, it waits here for that place's line and
   * column. `place` is only called for a warning kept.
   */
  warn(warnings: WarningSink, warning: IngestWarning, place: () => JsonPlace | undefined): void {
    if (!warnings.add(warning)) return;
    const at = place();
    if (at !== undefined) this.#pending.push({ warning, place: at });
  }

  /** Whether a warning waits for its place. */
  get waiting(): boolean {
    return this.#pending.length > 0;
  }

  /** Gives each waiting warning the `line` and `column` of its place in `file`, a whole document read again for it. */
  async resolve(file: string): Promise<void> {
    if (this.#pending.length === 0) return;
    const text = await documentText(file);
    if (text === undefined) {
      this.#pending.length = 0;
      return;
    }
    this.resolveIn(text);
  }

  /**
   * Gives each waiting warning the `line` and `column` of its place in `text`, the document at hand; with `line`, the
   * document is that line of a JSON Lines file (the warnings name it already: they take the column).
   */
  resolveIn(text: string, line?: number): void {
    const pending = this.#pending.splice(0);
    const places = pending.map((p) => p.place);
    const found = line === undefined ? locateInJson(text, places) : locateOnLine(text, line, places);
    for (const [i, { warning }] of pending.entries()) {
      const at = found[i];
      if (at) Object.assign(warning, { line: at.line, column: at.column });
    }
  }
}

/**
 * The warnings of a read waiting for places in its files that are one JSON document, per file, until the read is over:
 * then each such file with a warning is read again and scanned once, for all of them, whether its reader raised them
 * or the normaliser did later (its sessions may be normalised as late as the end of the read).
 */
export class DocumentPositions {
  readonly #files = new Map<string, PendingPositions>();

  /** The warnings about places of `file` (one document). */
  of(file: string): PendingPositions {
    let pending = this.#files.get(file);
    if (!pending) this.#files.set(file, (pending = new PendingPositions()));
    return pending;
  }

  /** Gives every waiting warning its line and column. */
  async resolve(): Promise<void> {
    for (const [file, pending] of this.#files) await pending.resolve(file);
  }
}
