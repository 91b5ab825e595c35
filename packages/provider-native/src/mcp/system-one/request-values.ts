/**
 * The specific values a request names (an id, a path, a repository, a number, a quoted title): the right call
 * carries them, or gets them back. A call that carries few of them (a confusable tool that takes other arguments, a
 * value swapped for another, a second request nobody acted on) did something else than what was asked, whatever its
 * name shares with the request's words.
 */
import { tokens } from './lexical.js';

const QUOTED = /"([^"]+)"|“([^”]+)”/g;
/**
 * Characters a value is written with and plain words are not: digits, path and id separators (not a hyphen alone:
 * "double-check" is a word).
 */
const VALUE_MARK = /\d|[a-z0-9][/._@:][a-z0-9]|^[#@/~][a-z0-9]/i;
/** Brackets and list punctuation split a chunk (`orders(country,` is two words); edges lose sentence punctuation. */
const CHUNK_BREAK = /[\s()[\]{}<>,;]+/;
const EDGE_PUNCTUATION = /^["'`!?]+|["'`.:!?]+$/g;

export interface RequestValue {
  /** The ways it is written (a name and the id in brackets after it, `#team-core (C07QXRM2B)`, are one value). */
  forms: string[];
  /** A quoted phrase: its content words, carried when most of them are (an agent may trim a title's punctuation). */
  words?: string[];
}

/** The values of the texts seen last (a request is judged by several metrics, a part again with its request). */
const valuesCache = new Map<string, readonly RequestValue[]>();

/** The values a request names, each once, in order (shared: not to be changed). */
export function requestValues(request: string): readonly RequestValue[] {
  const hit = valuesCache.get(request);
  if (hit) return hit;
  const out = parseValues(request);
  if (valuesCache.size >= 2000) valuesCache.clear();
  valuesCache.set(request, out);
  return out;
}

function parseValues(request: string): RequestValue[] {
  const out: RequestValue[] = [];
  const seen = new Set<string>();
  for (const m of request.matchAll(QUOTED)) {
    const words = tokens(m[1] ?? m[2] ?? '');
    const form = (m[1] ?? m[2] ?? '').toLowerCase();
    if (words.length && !seen.has(form)) {
      seen.add(form);
      out.push({ forms: [form], words });
    }
  }
  // "#team-core (C07QXRM2B)": a value right before one in brackets names the same thing.
  const rest = request.replace(QUOTED, ' ');
  let previous: RequestValue | undefined;
  let previousEnd = -1;
  for (const m of rest.matchAll(/\S+/g)) {
    const bracketed = m[0].startsWith('(') && previousEnd === m.index - 1;
    const added: RequestValue[] = [];
    for (const piece of m[0].split(CHUNK_BREAK)) {
      const form = piece.replace(EDGE_PUNCTUATION, '').toLowerCase();
      if (form.replace(/[^a-z0-9]/g, '').length < 2 || !VALUE_MARK.test(form) || seen.has(form)) continue;
      seen.add(form);
      if (bracketed && previous && added.length === 0) previous.forms.push(form);
      else added.push({ forms: [form] });
    }
    out.push(...added);
    previous = added.at(-1) ?? (bracketed ? previous : undefined);
    previousEnd = m.index + m[0].length;
  }
  return out;
}

const isAlnum = (ch: string | undefined) => ch !== undefined && /[a-z0-9]/.test(ch);
const JOINER = /[-_.]/;

/**
 * `needle` occurs in `hay` as a whole value: not inside a longer word or number, nor joined to one by `-`, `_` or
 * `.` (`facebook` is not in `facebook-old`; `15:00` is in `Thursday 15:00.`). A number only needs no digit beside it
 * (`2024` is in `'2024-03-01'`).
 */
function occurs(hay: string, needle: string): boolean {
  const isNumber = /^\d[\d.:,]*$/.test(needle);
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (isNumber) {
      if (!/\d/.test(hay[at - 1] ?? '') && !/\d/.test(hay[end] ?? '')) return true;
      continue;
    }
    const joinedBefore = isAlnum(hay[at - 1]) || (JOINER.test(hay[at - 1] ?? '') && isAlnum(hay[at - 2]));
    const joinedAfter = isAlnum(hay[end]) || (JOINER.test(hay[end] ?? '') && isAlnum(hay[end + 1]));
    if (!(isAlnum(needle[0]) && joinedBefore) && !(isAlnum(needle.at(-1)) && joinedAfter)) return true;
  }
  return false;
}

/**
 * A form is carried when it occurs in what the calls sent or got back, or each of its `/`-separated segments does
 * (`vuejs/core` sent as owner `vuejs` and repo `core`).
 */
function formCarried(form: string, carriedLower: string): boolean {
  if (occurs(carriedLower, form)) return true;
  const segments = form.split('/').filter((s) => s.length > 0);
  return segments.length > 1 && segments.every((s) => occurs(carriedLower, s));
}

/** Whether a value is carried by what the calls sent or got back. */
function valueCarried(value: RequestValue, carried: Carried): boolean {
  if (value.words) {
    const words = carried.words();
    return value.words.filter((w) => words.has(w)).length / value.words.length >= 0.6;
  }
  return value.forms.some((form) => formCarried(form, carried.lower));
}

/** What the calls sent and got back, to find the request's values in. */
export interface Carried {
  lower: string;
  /** Its words (made when a quoted value asks for them). */
  words: () => ReadonlySet<string>;
}

export interface ValueUse {
  /** Share of the values of the parts acted on that no call carried (0 when they name none). */
  unused: number;
  /** 1 when, of two or more parts, one names values of its own (none another part names) and no call carried any. */
  partUndone: number;
}

/**
 * How the calls used the request's values. A part none of whose own values was carried was not acted on ("… and post
 * the count to C024BE91L" with nothing posted): that is a part left undone, not a value got wrong, so its values
 * are left out of the share when another part was acted on.
 */
export function valueUse(request: string, parts: readonly string[], carried: Carried): ValueUse {
  const isCarried = (v: RequestValue) => valueCarried(v, carried);
  const undone = new Set<string>();
  if (parts.length >= 2) {
    const perPart = parts.map((part) => requestValues(part));
    perPart.forEach((values, k) => {
      const others = new Set(perPart.flatMap((v, j) => (j === k ? [] : v.flatMap((x) => x.forms))));
      const own = values.filter((v) => !v.forms.some((form) => others.has(form)));
      if (own.length > 0 && !own.some(isCarried)) for (const v of own) for (const form of v.forms) undone.add(form);
    });
  }
  const all = requestValues(request);
  const acted = all.filter((v) => !v.forms.some((form) => undone.has(form)));
  const judged = acted.length ? acted : all;
  const unused = judged.length ? judged.filter((v) => !isCarried(v)).length / judged.length : 0;
  return { unused, partUndone: undone.size > 0 ? 1 : 0 };
}
