/**
 * `metric_results` rows in COPY's binary format. PostgreSQL then reads each field by its length instead of scanning
 * every character of a text line for delimiters and escapes, and parses no numbers: about 13% less of its CPU per
 * COPYed row (bench/worker's rows: 186,000 in 600 ms of backend CPU as text, 520 ms binary). Building the rows costs
 * this side what the text lines did.
 *
 * Format: a header (signature, flags, header-extension length), then per row a 16-bit field count and, per field, a
 * 32-bit byte length (-1 for NULL) and the bytes; a 16-bit -1 ends the data. Integers are big-endian; text and json
 * are their UTF-8 text; double precision is IEEE 754; bigint is 8 bytes. Written here rather than with
 * pg-copy-streams-binary, whose writer is an object-mode stream taking a typed value object per field: the table's
 * 16 columns are fixed, and they go straight into a shared buffer.
 *
 * PostgreSQL's text cannot hold a NUL character: one in a text field is stored as U+FFFD (the replacement character,
 * as for a lone surrogate), instead of failing the whole batch's COPY. JSON details escape it (`\u0000`), which the
 * `json` column keeps.
 */
import type { MetricResult, ValidationIssue } from '@mce/core';
import { computedAtOf, detailsText } from '@mce/store/adapter';

/** The 11-byte signature, then 32-bit flags and header-extension length, both 0. */
export const COPY_BINARY_HEADER: Buffer = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** A field count of -1. */
export const COPY_BINARY_TRAILER: Buffer = Buffer.from([0xff, 0xff]);

/** The columns a row carries, in the order of `COLUMNS` in result-copy.ts. */
const FIELD_COUNT = 16;
/** Bytes of a row besides its text: the field count, 16 lengths, three int4, two float8 and one int8. */
const FIXED_BYTES = 2 + FIELD_COUNT * 4 + 3 * 4 + 3 * 8;
const CHUNK_BYTES = 256 * 1024;
const INT4_MAX = 2 ** 31 - 1;
const TWO_32 = 2 ** 32;
const COUNT_FIELDS = ['evaluationPromptTokenCount', 'evaluationCompletionTokenCount', 'evaluationTotalTokenCount'] as const;

/** What `metric_results` cannot hold of a valid result: token counts beyond its `integer` columns. */
export function postgresLimits(r: MetricResult): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const field of COUNT_FIELDS) {
    if (r[field] > INT4_MAX) issues.push({ path: field, message: `${r[field]} exceeds the PostgreSQL integer column (at most ${INT4_MAX})` });
  }
  return issues;
}

/**
 * Encodes rows into buffers of about 256 kB. The rows written since the last `take` come out as slices of those
 * buffers; a buffer is only replaced when the next row does not fit, so a batch of small takes shares few buffers.
 */
export class ResultRowEncoder {
  #buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  /** Start of the bytes not yet taken, and the write position. */
  #start = 0;
  #offset = 0;
  #full: Buffer[] = [];

  /** Appends one row. Throws (writing nothing) for a value the table's columns cannot hold. */
  write(r: MetricResult): void {
    const computedAt = computedAtOf(r.timestamp);
    if (!Number.isSafeInteger(computedAt)) throw new Error(`metric result ${r.id}: timestamp "${r.timestamp}" is not a date`);
    const prompt = int4(r, 'evaluationPromptTokenCount');
    const completion = int4(r, 'evaluationCompletionTokenCount');
    const total = int4(r, 'evaluationTotalTokenCount');
    const details = detailsText(r);
    const model = r.evaluationModel;
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    const textUnits =
      r.id.length + r.name.length + r.reasoning.length + (model?.length ?? 0) + r.timestamp.length +
      r.ofMetricType.length + r.measures.level.length + r.measures.id.length + r.sessionId.length + (details?.length ?? 0);
    this.#reserve(FIXED_BYTES + 3 * textUnits);
    const b = this.#buffer;
    let o = b.writeInt16BE(FIELD_COUNT, this.#offset);
    o = text(b, o, r.id);
    o = text(b, o, r.name);
    o = float8(b, o, r.result);
    o = text(b, o, r.reasoning);
    o = model === null ? b.writeInt32BE(-1, o) : text(b, o, model);
    o = b.writeInt32BE(prompt, b.writeInt32BE(4, o));
    o = b.writeInt32BE(completion, b.writeInt32BE(4, o));
    o = b.writeInt32BE(total, b.writeInt32BE(4, o));
    o = float8(b, o, r.evaluationCost);
    o = text(b, o, r.timestamp);
    const high = Math.floor(computedAt / TWO_32);
    o = b.writeUInt32BE(computedAt - high * TWO_32, b.writeInt32BE(high, b.writeInt32BE(8, o)));
    o = text(b, o, r.ofMetricType);
    o = text(b, o, r.measures.level);
    o = text(b, o, r.measures.id);
    o = text(b, o, r.sessionId);
    o = details === undefined ? b.writeInt32BE(-1, o) : text(b, o, details);
    this.#offset = o;
  }

  /** The buffers filled since the last take (the rows in the current one stay). */
  takeFull(): Buffer[] {
    const out = this.#full;
    this.#full = [];
    return out;
  }

  /** The bytes written since the last take (possibly none). */
  take(): Buffer[] {
    const out = this.#full;
    this.#full = [];
    if (this.#offset > this.#start) out.push(this.#buffer.subarray(this.#start, this.#offset));
    this.#start = this.#offset;
    return out;
  }

  #reserve(bytes: number): void {
    if (this.#offset + bytes <= this.#buffer.length) return;
    if (this.#offset > this.#start) this.#full.push(this.#buffer.subarray(this.#start, this.#offset));
    this.#buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
    this.#start = this.#offset = 0;
  }
}

/** A whole COPY's data: header, rows, trailer. */
export function* binaryCopyData(results: readonly MetricResult[]): Generator<Buffer> {
  yield COPY_BINARY_HEADER;
  const rows = new ResultRowEncoder();
  for (const r of results) {
    rows.write(r);
    yield* rows.takeFull();
  }
  yield* rows.take();
  yield COPY_BINARY_TRAILER;
}

/** PostgreSQL text holds no NUL character: each becomes U+FFFD (the replacement character, as for a lone surrogate). */
export function withoutNul(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}

function text(b: Buffer, o: number, value: string): number {
  const bytes = b.write(withoutNul(value), o + 4);
  b.writeInt32BE(bytes, o);
  return o + 4 + bytes;
}

function float8(b: Buffer, o: number, value: number): number {
  return b.writeDoubleBE(value, b.writeInt32BE(8, o));
}

type CountField = (typeof COUNT_FIELDS)[number];

/** A token count for an `integer` column (validated, and within `postgresLimits`; checked again all the same). */
function int4(r: MetricResult, field: CountField): number {
  const value = r[field];
  if (value > INT4_MAX) throw new Error(`metric result ${r.id}: ${field} ${value} exceeds the PostgreSQL integer column`);
  return value;
}
