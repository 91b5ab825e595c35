import { describe, expect, it } from 'vitest';
import type { MetricResult } from '@mce/core';
import { byKey } from '../src/result-copy.js';
import { binaryCopyData, COPY_BINARY_HEADER, ResultRowEncoder } from '../src/result-rows.js';
import { DEFINITIONS, metricResult } from '@mce/store/conformance';

type Field = Buffer | null;

/** Splits COPY binary data (header, rows, trailer) into rows of raw fields, checking the framing on the way. */
function decode(data: Buffer): Field[][] {
  expect(data.subarray(0, COPY_BINARY_HEADER.length)).toEqual(COPY_BINARY_HEADER);
  let o = COPY_BINARY_HEADER.length;
  const rows: Field[][] = [];
  for (;;) {
    const count = data.readInt16BE(o);
    o += 2;
    if (count === -1) break;
    const row: Field[] = [];
    for (let f = 0; f < count; f++) {
      const length = data.readInt32BE(o);
      o += 4;
      row.push(length === -1 ? null : data.subarray(o, o + length));
      if (length > 0) o += length;
    }
    rows.push(row);
  }
  expect(o).toBe(data.length); // nothing after the trailer
  return rows;
}

type Read = Field | undefined;
const str = (f: Read) => (f == null ? null : f.toString('utf8'));
const int4 = (f: Read) => (f as Buffer).readInt32BE(0);
const float8 = (f: Read) => (f as Buffer).readDoubleBE(0);
const int8 = (f: Read) => (f as Buffer).readBigInt64BE(0);

const judged = DEFINITIONS.find((d) => d.computedBy === 'deepeval')!;

describe('PostgreSQL COPY rows', () => {
  it('sorts results in the table key order, (session_id, id), one session or several', () => {
    const one = ['c', 'a', 'b'].map((id) => metricResult(id, 's1'));
    expect(one.sort(byKey).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    const mixed = [metricResult('a', 's2'), metricResult('c', 's1'), metricResult('b', 's2'), metricResult('a', 's1')];
    expect(mixed.sort(byKey).map((r) => `${r.sessionId}/${r.id}`)).toEqual(['s1/a', 's1/c', 's2/a', 's2/b']);
  });

  it('writes every column in table order, in binary: text as UTF-8, numbers big-endian, NULLs as length -1', () => {
    const r: MetricResult = {
      ...metricResult('r1', 'sessión-1', { metric: judged, value: 0.1 + 0.2, level: 'LLMCall', measures: 'span-9' }),
      reasoning: 'tab\there, new line\n, back\\slash, \\N, é ✓ \u{1F600}',
      evaluationPromptTokenCount: 2 ** 31 - 1,
      timestamp: '2026-11-30T11:28:06.716+02:00',
    };
    const [row] = decode(Buffer.concat([...binaryCopyData([r])]));
    expect(row).toHaveLength(16);
    const f = row ?? [];
    expect([str(f[0]), str(f[1]), float8(f[2]), str(f[3]), str(f[4])]).toEqual([
      'r1', judged.name, 0.30000000000000004, r.reasoning, 'gpt-4o',
    ]);
    expect([int4(f[5]), int4(f[6]), int4(f[7]), float8(f[8])]).toEqual([2147483647, 40, 552, 0.00168]);
    expect(str(f[9])).toBe('2026-11-30T11:28:06.716+02:00');
    expect(int8(f[10])).toBe(BigInt(Date.UTC(2026, 10, 30, 9, 28, 6, 716))); // epoch ms, offset applied
    expect([str(f[11]), str(f[12]), str(f[13]), str(f[14])]).toEqual([judged.id, 'LLMCall', 'span-9', 'sessión-1']);
    expect(JSON.parse(str(f[15]) as string)).toEqual({ samples: [4, 5], method: 'logprobs' });

    const [plain] = decode(Buffer.concat([...binaryCopyData([metricResult('r2', 's1')])]));
    expect(plain?.[4]).toBeNull(); // no evaluation model
    expect(plain?.[15]).toBeNull(); // no details
    expect(str(plain?.[3])).toBe(''); // an empty reasoning is an empty string, not NULL
  });

  it('writes a NUL character, which PostgreSQL text cannot hold, as U+FFFD (JSON details escape it themselves)', () => {
    const r = { ...metricResult('r1', 's1'), reasoning: 'a\u0000b\u0000', details: { x: 'c\u0000' } };
    const [row] = decode(Buffer.concat([...binaryCopyData([r])]));
    expect(str(row?.[3])).toBe('a\uFFFDb\uFFFD');
    expect(str(row?.[15])).toBe('{"x":"c\\u0000"}');
  });

  it('refuses, before writing anything, a count the integer column cannot hold and a timestamp that is no date', () => {
    const rows = new ResultRowEncoder();
    const tooMany = { ...metricResult('r1', 's1'), evaluationTotalTokenCount: 2 ** 31 };
    expect(() => rows.write(tooMany)).toThrow('r1: evaluationTotalTokenCount 2147483648 exceeds the PostgreSQL integer column');
    expect(() => rows.write({ ...metricResult('r2', 's1'), timestamp: 'yesterday' })).toThrow('timestamp "yesterday" is not a date');
    expect(rows.take()).toEqual([]);
  });

  it('keeps rows whole and in order across its 256 kB buffers, and hands each byte out once', () => {
    const rows = new ResultRowEncoder();
    const long = 'x'.repeat(40_000);
    const results = Array.from({ length: 30 }, (_, i) => ({ ...metricResult(`r${i}`, 's1'), reasoning: `${i}${long}` }));
    const taken: Buffer[] = [COPY_BINARY_HEADER];
    results.forEach((r, i) => {
      rows.write(r);
      if (i % 7 === 0) taken.push(...rows.take());
    });
    taken.push(...rows.take(), ...rows.take(), Buffer.from([0xff, 0xff]));
    expect(taken.length).toBeGreaterThan(3);
    const decoded = decode(Buffer.concat(taken));
    expect(decoded.map((f) => str(f[0]))).toEqual(results.map((r) => r.id));
    expect(decoded.map((f) => str(f[3]))).toEqual(results.map((r) => r.reasoning));
  });
});
