/**
 * Fields of a session document that the session format does not define. The zod schemas drop them silently, so a
 * misspelt `llmcalls` read as a session without LLM calls and a `startTme` as a session without a start; this pass
 * finds them, so that whoever reads a document can warn, naming the place and the field that was likely meant. The
 * document is still accepted (forward compatibility: a file written by a newer mce, or with fields of its own).
 *
 * The known fields of each object come from the zod schemas themselves, so the check cannot drift from them. Free-form
 * values (`attributes`, `input`, `output`, tool `arguments` and `result`, a tool's `inputSchema`) are the format's
 * extension points: whatever they hold is not looked into.
 *
 * It is a separate walk over the parsed JSON, one map lookup per key: about a tenth of what zod's parse of the same
 * document costs (2–3 % of reading a session file). zod's own means do not fit: `.strict()` turns the fields into
 * errors (a second parse would then be needed to accept the document), and a catch-all keeps them in the parsed
 * session, to be found and removed by a walk like this one.
 */
import { z } from 'zod';
import { closest } from '../engine/metric-options.js';
import { SessionFileSchema, SessionSchema } from './schemas.js';

/**
 * The fields of one object of the format: each maps to LEAF, or to the shape of the object it holds (alone or in a
 * list). One map, so that a known field costs one lookup.
 */
type Shape = ReadonlyMap<string, Nested>;
interface Nested {
  shape: Shape;
  list: boolean;
}
/** A field whose value is not walked into. */
const LEAF: Nested = { shape: new Map(), list: false };

/** The schema under optional / default / nullable wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
    else return s;
  }
}

/**
 * The shape of an object schema. Only plain objects and lists of them are walked into: a record, `unknown` or any
 * other schema is a value of its own (a union of objects would be too, until the walk learns to pick a member).
 */
function shapeOf(object: z.ZodObject): Shape {
  const fields = new Map<string, Nested>();
  for (const [key, field] of Object.entries(object.shape)) {
    const inner = unwrap(field as z.ZodType);
    const element = inner instanceof z.ZodArray ? unwrap(inner.element as z.ZodType) : undefined;
    if (inner instanceof z.ZodObject) fields.set(key, { shape: shapeOf(inner), list: false });
    else if (element instanceof z.ZodObject) fields.set(key, { shape: shapeOf(element), list: true });
    else fields.set(key, LEAF);
  }
  return fields;
}

const SESSION_SHAPE = shapeOf(SessionSchema);
const SESSION_LIST_SHAPE = shapeOf(SessionFileSchema.options[0]);

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a session document is the `{ "sessions": [...] }` form rather than one session: it has a `sessions` member
 * (even one that is no list, so that its fault is named) and is not marked as a session itself.
 */
export function isSessionListDocument(v: unknown): v is { sessions: unknown } {
  return isObject(v) && 'sessions' in v && v.kind !== 'Session';
}

/** The places of unknown fields listed one by one; those past it are counted together. */
export const MAX_UNKNOWN_FIELD_PLACES = 20;

/** An unknown field, and every other one of the same name at the same place of other calls, messages or sessions. */
export interface UnknownField {
  /** The field's name. */
  field: string;
  /** JSON path of the first one seen, e.g. `sessions[0].llmCalls[3].startTme`. */
  path: string;
  /** The same path as keys and list positions, to find the field in the document's text: `['sessions', 0, …, 'startTme']`. */
  keys: readonly (string | number)[];
  /** The place, with list positions left out: `sessions[*].llmCalls[*].startTme`. */
  place: string;
  /** How many were seen at this place. */
  count: number;
  /** A field of that object whose name is close (a likely typo). */
  suggestion?: string;
  /** The line of the first one's document in its file (JSON Lines). */
  line?: number;
}

/** One line of a report of unknown fields; the last one may stand for the fields past the cap (no `path`). */
export interface UnknownFieldNote {
  message: string;
  count: number;
  path?: string;
  /** `path` as keys and list positions. */
  keys?: readonly (string | number)[];
  field?: string;
  suggestion?: string;
  line?: number;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const member = (key: string) => (IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

function pathText(parts: readonly (string | number)[], key: string, positions: boolean): string {
  let out = '';
  for (const p of parts) out += typeof p === 'number' ? (positions ? `[${p}]` : '[*]') : member(p);
  out += member(key);
  return out.startsWith('.') ? out.slice(1) : out;
}

/**
 * The unknown fields of session documents, grouped by place (a file of 100,000 calls with the same stray key gives one
 * entry counting 100,000). At most `maxPlaces` places are kept; fields at further places are only counted.
 */
export class UnknownFields {
  readonly #places = new Map<string, UnknownField>();
  #omitted = 0;

  constructor(readonly maxPlaces = MAX_UNKNOWN_FIELD_PLACES) {}

  /** Walk one parsed session document (a session, or `{ "sessions": [...] }`); `line`: where it is in its file. */
  check(doc: unknown, line?: number): this {
    if (!isObject(doc)) return this;
    walk(doc, isSessionListDocument(doc) ? SESSION_LIST_SHAPE : SESSION_SHAPE, [], (key, shape, path) => this.#found(key, shape, path, line));
    return this;
  }

  /** Another tally's fields (e.g. one line's) added to this one's. */
  add(other: UnknownFields): void {
    for (const f of other.#places.values()) {
      const mine = this.#places.get(f.place);
      if (mine) mine.count += f.count;
      else if (this.#places.size < this.maxPlaces) this.#places.set(f.place, { ...f });
      else this.#omitted += f.count;
    }
    this.#omitted += other.#omitted;
  }

  /** The places, in the order first seen. */
  get list(): UnknownField[] {
    return [...this.#places.values()];
  }

  /** Unknown fields at places past the cap. */
  get omitted(): number {
    return this.#omitted;
  }

  /** Every unknown field seen. */
  get total(): number {
    let n = this.#omitted;
    for (const f of this.#places.values()) n += f.count;
    return n;
  }

  /**
   * One note per place (`path: unknown field, ignored`, the likely field meant, how many more at that place), then
   * one for the fields past the cap.
   */
  notes(): UnknownFieldNote[] {
    const notes: UnknownFieldNote[] = this.list.map((f) => {
      const hint = f.suggestion === undefined ? '' : ` (did you mean "${f.suggestion}"?)`;
      const more = f.count > 1 ? `; ${f.count} in all at ${f.place}` : '';
      return {
        message: `${f.path}: unknown field, ignored${hint}${more}`,
        count: f.count,
        path: f.path,
        keys: f.keys,
        field: f.field,
        ...(f.suggestion === undefined ? {} : { suggestion: f.suggestion }),
        ...(f.line === undefined ? {} : { line: f.line }),
      };
    });
    if (this.#omitted > 0) notes.push({ message: `and ${this.#omitted} more unknown field(s) at other places, ignored`, count: this.#omitted });
    return notes;
  }

  #found(key: string, shape: Shape, path: readonly (string | number)[], line: number | undefined): void {
    const place = pathText(path, key, false);
    const seen = this.#places.get(place);
    if (seen) {
      seen.count++;
      return;
    }
    if (this.#places.size >= this.maxPlaces) {
      this.#omitted++;
      return;
    }
    const suggestion = closest(key, shape.keys());
    this.#places.set(place, {
      field: key,
      path: pathText(path, key, true),
      keys: [...path, key],
      place,
      count: 1,
      ...(suggestion === undefined ? {} : { suggestion }),
      ...(line === undefined ? {} : { line }),
    });
  }
}

type Found = (key: string, shape: Shape, path: readonly (string | number)[]) => void;

/**
 * Calls `found` for each unknown field of `value` and the objects below it; `path` is where `value` is, kept as a
 * stack. It runs for every object of every document read: one map lookup per key, nothing allocated on the way.
 */
function walk(value: Obj, shape: Shape, path: (string | number)[], found: Found): void {
  for (const key in value) {
    const nested = shape.get(key);
    if (nested === LEAF) continue;
    if (nested === undefined) {
      found(key, shape, path);
      continue;
    }
    const v = value[key];
    if (typeof v !== 'object' || v === null) continue; // a wrong type is the schema's to name
    if (nested.list) {
      if (!Array.isArray(v)) continue;
      path.push(key, 0);
      for (let i = 0; i < v.length; i++) {
        const element: unknown = v[i];
        if (typeof element !== 'object' || element === null || Array.isArray(element)) continue;
        path[path.length - 1] = i;
        walk(element as Obj, nested.shape, path, found);
      }
      path.length -= 2;
    } else if (!Array.isArray(v)) {
      path.push(key);
      walk(v as Obj, nested.shape, path, found);
      path.pop();
    }
  }
}
