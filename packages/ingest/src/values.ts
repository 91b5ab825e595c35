/**
 * Tolerant decoding of the scalar pieces of trace files: ids (hex, base64, Buffer objects, byte arrays),
 * int64 (strings, numbers, Long objects), enums (ints or names), nanosecond timestamps, OTLP AnyValue.
 */
import { hasControlCharacter, NO_CONTROL_CHARACTER, quoteControlCharacters } from '@mce/core';
import { MAX_JSON_DEPTH } from './json-depth.js';

const HEX = /^[0-9a-f]+$/i;
const LOWER_HEX = /^[0-9a-f]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

function bytesToHex(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += ((bytes[i] ?? 0) & 0xff).toString(16).padStart(2, '0');
  return out;
}

function isAllZero(hex: string): boolean {
  for (let i = 0; i < hex.length; i++) if (hex.charCodeAt(i) !== 48) return false;
  return true;
}

/**
 * `decodeId` of the first of `keys` that `record` has (the spellings a format allows: `traceId`, `trace_id`), an error
 * naming the field as the file spells it: `trace id (trace_id)`.
 */
export function decodeIdField(record: Record<string, unknown>, what: string, keys: readonly string[]): string | undefined {
  const key = keys.find((k) => record[k] != null) ?? (keys[0] as string);
  return decodeId(record[key], `${what} (${key})`);
}

/**
 * A trace or span id as lowercase hex, or undefined when absent/empty/all zero.
 * Hex strings of 16/32 digits are taken as hex; other strings that decode as base64 to 8 or 16 bytes are base64
 * (the protobuf JSON mapping); `{type:'Buffer', data:[…]}` and byte arrays are raw bytes. Anything else throws,
 * naming `field`: an id with a control character (U+0000–U+001F, U+007F, as the session format refuses them in ids)
 * is said to be one, shown with the character escaped.
 */
export function decodeId(value: unknown, field = 'id'): string | undefined {
  let hex: string | undefined;
  if (typeof value === 'string') {
    const s = value.trim();
    if (s === '') return undefined;
    if ((s.length === 16 || s.length === 32) && HEX.test(s)) hex = LOWER_HEX.test(s) ? s : s.toLowerCase();
    else if (BASE64.test(s) && (s.length === 12 || s.length === 24)) {
      const buf = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      hex = buf.length === 8 || buf.length === 16 ? buf.toString('hex') : s.toLowerCase();
    } else if (HEX.test(s)) hex = s.toLowerCase();
    // (A control character cannot be in an id that decodes, so this costs nothing on the way of one that does.)
    else if (hasControlCharacter(s)) throw new TypeError(`${field} ${quoteControlCharacters(s.slice(0, 40))} ${NO_CONTROL_CHARACTER}`);
    else throw new TypeError(`unreadable ${field} ${JSON.stringify(s.slice(0, 40))}`);
  } else if (Array.isArray(value)) {
    hex = bytesToHex(value as number[]);
  } else if (value instanceof Uint8Array) {
    hex = bytesToHex(value);
  } else if (value && typeof value === 'object' && Array.isArray((value as { data?: unknown }).data)) {
    hex = bytesToHex((value as { data: number[] }).data);
  } else if (value === undefined || value === null) {
    return undefined;
  } else {
    throw new TypeError(`unreadable ${field} of type ${typeof value}`);
  }
  if (hex === '' || isAllZero(hex)) return undefined;
  return hex;
}

/** An int64 as a JS number: number, decimal string, or Long `{low, high, unsigned}`. */
export function decodeInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const s = value.trim();
    if (s === '') return undefined;
    const n = Number(s);
    return Number.isFinite(n) ? n : undefined;
  }
  if (value && typeof value === 'object' && 'low' in value && 'high' in value) {
    const { low, high, unsigned } = value as { low: number; high: number; unsigned?: boolean };
    if (typeof low !== 'number' || typeof high !== 'number') return undefined;
    const lo = low >>> 0;
    const hi = unsigned ? high >>> 0 : high | 0;
    return hi * 4294967296 + lo;
  }
  return undefined;
}

function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A decimal ns count → ms, parsed digit by digit into whole ms and the sub-ms rest (exact, no allocation). */
function digitsToMillis(s: string): number | undefined {
  const n = s.length;
  if (n === 0 || n > 25) return undefined;
  const split = n - 6;
  let whole = 0;
  let rest = 0;
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    if (i < split) whole = whole * 10 + d;
    else rest = rest * 10 + d;
  }
  return whole + rest / 1e6;
}

/** Nanoseconds since the epoch (any int64 spelling) → fractional epoch milliseconds, without losing the ms part. */
export function nanosToMillis(value: unknown): number | undefined {
  if (typeof value === 'string') {
    // Split the digits so the sub-millisecond part survives (a 19-digit ns count does not fit a double exactly).
    const ms = digitsToMillis(value);
    if (ms !== undefined) return ms;
    const t = value.trim();
    if (t !== value && isDigits(t)) return nanosToMillis(t);
  }
  if (value && typeof value === 'object' && 'low' in value && 'high' in value) {
    const { low, high } = value as { low: number; high: number };
    if (typeof low !== 'number' || typeof high !== 'number') return undefined;
    const ns = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
    return Number(ns / 1000000n) + Number(ns % 1000000n) / 1e6;
  }
  const n = decodeInt(value);
  return n === undefined ? undefined : n / 1e6;
}

const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

const kindCache = new Map<string, string>();
const statusCache = new Map<string, 'ok' | 'error' | 'unset'>();

/** `2025-06-20 21:37:08.604225` (UTC), ISO strings, epoch s/ms/µs/ns numbers → fractional epoch ms. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()))) {
    const n = Number(value);
    if (!Number.isFinite(n)) return undefined;
    if (n > 1e17) return nanosToMillis(typeof value === 'string' ? value.trim() : value);
    if (n > 1e14) return n / 1e3; // µs
    if (n > 1e11) return n; // ms
    return n * 1e3; // s
  }
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(value.trim());
  if (!m) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  const base = Date.parse(`${m[1]}T${m[2]}${m[4] ?? 'Z'}`);
  if (Number.isNaN(base)) return undefined;
  const frac = m[3] ? Number(`0.${m[3]}`) * 1000 : 0;
  return base + frac;
}

/** Span kind from 0–5, `SPAN_KIND_CLIENT`, `Client`, `SpanKind.CLIENT`… → lowercase name. */
export function decodeSpanKind(value: unknown): string {
  if (typeof value === 'number') return SPAN_KINDS[value] ?? 'unspecified';
  if (typeof value === 'string') {
    const hit = kindCache.get(value);
    if (hit !== undefined) return hit;
    const s = value.trim();
    let out: string;
    if (isDigits(s)) out = SPAN_KINDS[Number(s)] ?? 'unspecified';
    else {
      const name = s.replace(/^(SPAN_KIND_|SpanKind\.)/i, '').toLowerCase();
      out = SPAN_KINDS.includes(name) ? name : 'unspecified';
    }
    if (kindCache.size < 64) kindCache.set(value, out);
    return out;
  }
  return 'unspecified';
}

/** Status code from 0/1/2, `STATUS_CODE_ERROR`, `Error`, `ERROR`… */
export function decodeStatusCode(value: unknown): 'ok' | 'error' | 'unset' {
  if (typeof value === 'number') return value === 1 ? 'ok' : value === 2 ? 'error' : 'unset';
  if (typeof value === 'string') {
    const hit = statusCache.get(value);
    if (hit !== undefined) return hit;
    const s = value.trim().replace(/^(STATUS_CODE_|StatusCode\.)/i, '').toLowerCase();
    const out = s === '1' || s === 'ok' ? 'ok' : s === '2' || s === 'error' ? 'error' : 'unset';
    if (statusCache.size < 64) statusCache.set(value, out);
    return out;
  }
  return 'unset';
}

type Obj = Record<string, unknown>;

/**
 * OTLP AnyValue (camelCase or snake_case keys) → plain JS value; a value that is not an AnyValue passes through. A
 * value nested deeper than MAX_JSON_DEPTH lists or key-value lists is refused (TypeError: the span's reader names it):
 * decoded, it would overflow the stack of whatever walks it next, far from the span that holds it.
 */
export function decodeAnyValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (depth >= MAX_JSON_DEPTH) throw new TypeError(`attribute value nested deeper than ${MAX_JSON_DEPTH} levels`);
  const v = value as Obj;
  if ('stringValue' in v) return v.stringValue;
  if ('string_value' in v) return v.string_value;
  if ('boolValue' in v) return v.boolValue;
  if ('bool_value' in v) return v.bool_value;
  // An intValue that is no integer is kept as written (a string), so that whoever reads the attribute can say so.
  if ('intValue' in v) return decodeInt(v.intValue) ?? (typeof v.intValue === 'string' ? v.intValue : undefined);
  if ('int_value' in v) return decodeInt(v.int_value);
  if ('doubleValue' in v) return typeof v.doubleValue === 'string' ? Number(v.doubleValue) : v.doubleValue;
  if ('double_value' in v) return v.double_value;
  if ('bytesValue' in v) return v.bytesValue;
  if ('bytes_value' in v) return v.bytes_value;
  const arr = (v.arrayValue ?? v.array_value) as Obj | undefined;
  if (arr !== undefined) return Array.isArray(arr?.values) ? arr.values.map((item) => decodeAnyValue(item, depth + 1)) : [];
  const kv = (v.kvlistValue ?? v.kvlist_value) as Obj | undefined;
  if (kv !== undefined) return decodeKeyValues(kv?.values, depth + 1);
  if (Object.keys(v).length === 0) return undefined;
  return value;
}

/** A list of OTLP `KeyValue` (or an already plain object) → a record of decoded values. */
export function decodeKeyValues(list: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(list)) {
    for (const kv of list) {
      if (!kv || typeof kv !== 'object') continue;
      const key = (kv as Obj).key;
      if (typeof key !== 'string') continue;
      const val = decodeAnyValue((kv as Obj).value, depth);
      if (val !== undefined) setOwn(out, key, val);
    }
  } else if (list && typeof list === 'object') {
    for (const [k, val] of Object.entries(list as Obj)) if (val !== undefined) setOwn(out, k, decodeAnyValue(val, depth));
  }
  return out;
}

/**
 * `out[key] = value` as an own property: assigned, a key `__proto__` would set the record's prototype instead, and
 * the attributes it carries would then answer look-ups of keys the span never had.
 */
function setOwn(out: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
