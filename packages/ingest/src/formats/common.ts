/**
 * What the readers of the other tools' span JSON share: ids as those tools write them, times in their units, nested
 * attributes flattened to the dotted keys the dialects read, and one loop that turns each record into a span or a
 * warning naming it.
 */
import { createHash } from 'node:crypto';
import { hasControlCharacter, MAX_EPOCH_MS, NO_CONTROL_CHARACTER, quoteControlCharacters } from '@mce/core';
import { errorMessage, type IngestWarning, type WarningSink } from '../errors.js';
import type { JsonPath } from '../json-position.js';
import { isObj } from '../messages.js';
import type { SpanEvent, SpanRecord } from '../span.js';
import { decodeAnyValue, decodeId, parseTimestamp } from '../values.js';
import { spanLabel, warnAt, type Where } from './otlp.js';

export type Obj = Record<string, unknown>;

const DECIMAL = /^\d+$/;

/**
 * A trace or span id as these tools write it: hex (with or without `0x`), base64, a decimal integer (any-agent's
 * Python ints), or an opaque string kept as written (Phoenix's sanitised `fixture-trace-1`). `bytes`: 16 for a
 * trace id, 8 for a span id (the width a decimal id is padded to); `decimal`: digits are a decimal integer even when
 * as many as a hex id has. Undefined for none.
 */
export function readId(value: unknown, what: string, bytes: 8 | 16, decimal = false): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (decimal && typeof value === 'string' && DECIMAL.test(value.trim())) return decimalId(BigInt(value.trim()), bytes);
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)) return decimalId(BigInt(value), bytes);
  if (typeof value === 'number') throw new TypeError(`${what} ${value} lost its digits (a decimal id past 2^53 must be read from the text)`);
  if (typeof value !== 'string') return decodeId(value, what);
  const s = value.trim();
  if (/^0x[0-9a-f]+$/i.test(s)) return decodeId(s.slice(2).padStart(bytes * 2, '0'), what);
  if (DECIMAL.test(s) && s.length !== bytes * 2) return decimalId(BigInt(s), bytes);
  try {
    return decodeId(s, what);
  } catch (err) {
    if (hasControlCharacter(s)) throw new TypeError(`${what} ${quoteControlCharacters(s.slice(0, 40))} ${NO_CONTROL_CHARACTER}`, { cause: err });
    if (s.length > 0 && s.length <= 256) return s; // an opaque id: the tool's own, kept as written
    throw err;
  }
}

function decimalId(n: bigint, bytes: number): string | undefined {
  if (n === 0n) return undefined;
  return n.toString(16).padStart(bytes * 2, '0');
}

/** A trace id for spans that carry none, the same on every read of the same content (re-reading merges, not doubles). */
export function contentId(content: unknown, bytes: 8 | 16): string {
  return createHash('sha256').update(JSON.stringify(content) ?? '').digest('hex').slice(0, bytes * 2);
}

/** A time: ISO string (sub-millisecond digits kept), epoch s/ms/µs/ns number or digits, or hrtime `[s, ns]`. */
export function readTime(value: unknown): number | undefined {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number') {
    return value[0] * 1e3 + value[1] / 1e6;
  }
  return parseTimestamp(value);
}

/** Start and end of a span; throws, naming the fields, when they cannot be read or are out of the range of dates. */
export function spanTimes(start: unknown, end: unknown, names: string): { startTime: number; endTime: number } {
  const startTime = readTime(start);
  if (startTime === undefined || startTime <= 0) throw new TypeError(`span has no readable start time (${names})`);
  const endTime = end === undefined || end === null ? undefined : readTime(end);
  if (endTime === undefined) throw new TypeError(`span has no readable end time (${names})`);
  if (startTime > MAX_EPOCH_MS || endTime > MAX_EPOCH_MS) throw new TypeError(`span time is out of the range of dates (${names})`);
  return { startTime, endTime: endTime >= startTime ? endTime : startTime };
}

/**
 * Attributes as the dialects read them: nested plain objects flattened to dotted keys (`{llm: {model_name}}` →
 * `llm.model_name`, as Phoenix may nest them), lists and scalars kept as they are; OTLP AnyValues decoded.
 */
export function flatAttributes(value: unknown, out: Obj = {}, prefix = ''): Obj {
  if (!isObj(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    const key = prefix === '' ? k : `${prefix}.${k}`;
    if (v === undefined || v === null) continue;
    if (isObj(v) && !isAnyValue(v)) flatAttributes(v, out, key);
    else setAttribute(out, key, decodeAnyValue(v));
  }
  return out;
}

const ANY_VALUE_KEYS = new Set(['stringValue', 'intValue', 'doubleValue', 'boolValue', 'arrayValue', 'kvlistValue', 'bytesValue', 'string_value', 'int_value', 'double_value', 'bool_value']);
const isAnyValue = (v: Obj): boolean => {
  const keys = Object.keys(v);
  return keys.length === 1 && ANY_VALUE_KEYS.has(keys[0]!);
};

/** `out[key] = value` as an own property (a key `__proto__` must not set the record's prototype). */
export function setAttribute(out: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Events `{name, timestamp|time, attributes}` in any of the readers' spellings. */
export function readEvents(list: unknown, fallback: number): SpanEvent[] {
  if (!Array.isArray(list) || list.length === 0) return [];
  return list.filter(isObj).map((e) => ({
    name: typeof e.name === 'string' ? e.name : '',
    time: readTime(e.timestamp ?? e.time ?? e.timeUnixNano) ?? fallback,
    attributes: flatAttributes(e.attributes),
  }));
}

/** A value as a span name: strings kept, other scalars written out. */
export const nameOf = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/**
 * Every record of a list decoded into a span; one that cannot be (no id, no time) becomes a `malformed-span` warning
 * naming it and its place (`listPath` + its index), and the rest are still read.
 */
export function* decodeList(
  records: readonly unknown[],
  listPath: JsonPath | undefined,
  decode: (record: unknown, index: number) => SpanRecord | undefined,
  label: (record: Obj) => unknown,
  warnings: WarningSink,
  where: Where,
): Generator<SpanRecord> {
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    let span: SpanRecord | undefined;
    try {
      span = decode(record, i);
    } catch (err) {
      const named = spanLabel(nameOf(isObj(record) ? label(record) : undefined) || '(unnamed)');
      const warning: IngestWarning = { code: 'malformed-span', message: `skipped span ${named}: ${errorMessage(err)}`, span: named, file: where.file };
      warnAt(warnings, where, warning, () => (listPath === undefined ? undefined : [...listPath, i]));
      continue;
    }
    if (span) yield span;
  }
}

/** The common fields of a span from one of these readers; where it is in its document, when that is known. */
export function placed(span: Omit<SpanRecord, 'listPath' | 'listIndex'>, listPath: JsonPath | undefined, index: number): SpanRecord {
  return listPath === undefined ? span : { ...span, listPath, listIndex: index };
}
