import { describe, expect, it } from 'vitest';
import { decodeAnyValue, decodeId, decodeIdField, decodeInt, decodeKeyValues, decodeSpanKind, decodeStatusCode, nanosToMillis } from '../src/values.js';

describe('tolerant value decoding', () => {
  it('ids: hex, base64, Buffer objects, byte arrays; empty and all-zero ids are absent', () => {
    expect(decodeId('5B8EFFF798038103D269B633813FC60C')).toBe('5b8efff798038103d269b633813fc60c');
    expect(decodeId(Buffer.from('a000000000000001', 'hex').toString('base64'))).toBe('a000000000000001');
    expect(decodeId('W47/95gDgQPSabYzgT/GDA==')).toBe('5b8efff798038103d269b633813fc60c');
    expect(decodeId({ type: 'Buffer', data: [0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74] })).toBe('eee19b7ec3c1b174');
    expect(decodeId([1, 2, 3, 4, 5, 6, 7, 8])).toBe('0102030405060708');
    expect(decodeId('')).toBeUndefined();
    expect(decodeId('0000000000000000')).toBeUndefined();
    expect(decodeId(undefined)).toBeUndefined();
    expect(() => decodeId('not an id!')).toThrow(/unreadable id/);
    expect(() => decodeId(42)).toThrow(/unreadable id/);
    // An id with a control character is said to be one (as the session format refuses them), naming the field.
    expect(() => decodeId('a0\n01', 'span id (spanId)')).toThrow(new TypeError('span id (spanId) "a0\\u000a01" must not contain a control character (U+0000–U+001F, U+007F)'));
    expect(() => decodeId('not hex', 'trace id (TraceId)')).toThrow(new TypeError('unreadable trace id (TraceId) "not hex"'));
    // Bytes written as signed numbers (a Java byte[] serialised as JSON) are the same bytes.
    expect(decodeId([-18, -31, -101, 126, -61, -63, -79, 116])).toBe('eee19b7ec3c1b174');
  });

  it('an id field: the first spelling the record holds (null is not holding it), named as the file spells it', () => {
    const keys = ['traceId', 'trace_id'];
    expect(decodeIdField({ traceId: null, trace_id: '5B8EFFF798038103D269B633813FC60C' }, 'trace id', keys)).toBe('5b8efff798038103d269b633813fc60c');
    expect(decodeIdField({ traceId: 'a000000000000001', trace_id: 'b000000000000002' }, 'trace id', keys)).toBe('a000000000000001');
    expect(decodeIdField({}, 'trace id', keys)).toBeUndefined();
    expect(() => decodeIdField({ traceId: null, trace_id: 'zz' }, 'trace id', keys)).toThrow(new TypeError('unreadable trace id (trace_id) "zz"'));
  });

  it('int64: strings, numbers, Long objects', () => {
    expect(decodeInt('412')).toBe(412);
    expect(decodeInt(27)).toBe(27);
    expect(decodeInt({ low: 1, high: 1, unsigned: false })).toBe(4294967297);
    expect(decodeInt({ low: -1, high: 0, unsigned: true })).toBe(4294967295);
    // A signed Long's high word is signed: -1 is -1, not 2^64 - 1.
    expect(decodeInt({ low: -1, high: -1, unsigned: false })).toBe(-1);
    expect(decodeInt({ low: 0, high: -2 })).toBe(-8589934592);
    expect(decodeInt({ low: 0, high: -2, unsigned: true })).toBe(4294967294 * 4294967296);
    expect(decodeInt('abc')).toBeUndefined();
    expect(decodeInt(null)).toBeUndefined();
  });

  it('nanosecond timestamps keep sub-millisecond precision', () => {
    expect(nanosToMillis('1788787518970589000')).toBe(1788787518970.589);
    const ns = 1764576000123456789n;
    const long = { low: Number(ns & 0xffffffffn) | 0, high: Number(ns >> 32n) | 0 };
    expect(nanosToMillis(long)).toBeCloseTo(1764576000123.4568, 4);
    expect(nanosToMillis(1749830400000000000)).toBe(1749830400000);
    expect(nanosToMillis('x')).toBeUndefined();
    // Digits padded with spaces keep their sub-millisecond part too (as a plain number they would not: …970.5889).
    expect(nanosToMillis(' 1788787518970589000 ')).toBe(1788787518970.589);
  });

  it('enums as integers or names', () => {
    expect([3, '3', 'SPAN_KIND_CLIENT', 'Client', 'SpanKind.CLIENT'].map(decodeSpanKind)).toEqual(Array(5).fill('client'));
    expect(decodeSpanKind(undefined)).toBe('unspecified');
    expect([2, '2', 'STATUS_CODE_ERROR', 'Error', 'ERROR', 'StatusCode.ERROR'].map(decodeStatusCode)).toEqual(Array(6).fill('error'));
    expect([1, '1', 'STATUS_CODE_OK', 'Ok'].map(decodeStatusCode)).toEqual(Array(4).fill('ok'));
    expect([0, 'Unset', undefined, 'bogus'].map(decodeStatusCode)).toEqual(Array(4).fill('unset'));
  });

  it('AnyValue of every kind, camelCase or snake_case', () => {
    expect(decodeAnyValue({ stringValue: 'a' })).toBe('a');
    expect(decodeAnyValue({ string_value: 'a' })).toBe('a');
    expect(decodeAnyValue({ intValue: '7' })).toBe(7);
    expect(decodeAnyValue({ doubleValue: 0.5 })).toBe(0.5);
    // The protobuf JSON mapping may write a double as a string ("NaN", "Infinity", or a number).
    expect(decodeAnyValue({ doubleValue: '0.25' })).toBe(0.25);
    expect(decodeAnyValue({ doubleValue: 'NaN' })).toBeNaN();
    expect(decodeAnyValue({ boolValue: false })).toBe(false);
    expect(decodeAnyValue({ bytesValue: 'AAE=' })).toBe('AAE=');
    expect(decodeAnyValue({ arrayValue: { values: [{ stringValue: 'x' }, { intValue: 2 }] } })).toEqual(['x', 2]);
    expect(decodeAnyValue({ arrayValue: {} })).toEqual([]);
    expect(decodeAnyValue({ kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } })).toEqual({ k: 'v' });
    expect(decodeAnyValue({})).toBeUndefined();
    expect(decodeAnyValue('plain')).toBe('plain');
    expect(decodeKeyValues([{ key: 'a', value: { intValue: '1' } }, { value: {} }, null, { key: 'b' }])).toEqual({ a: 1 });
    expect(decodeKeyValues({ a: 1, b: { stringValue: 'x' } })).toEqual({ a: 1, b: 'x' });
  });

  it('an attribute named __proto__ is data: kept as an own key, its contents answer no other look-up', () => {
    const injected = { kvlistValue: { values: [{ key: 'gen_ai.system', value: { stringValue: 'openai' } }] } };
    for (const attrs of [
      decodeKeyValues([{ key: '__proto__', value: injected }]),
      decodeKeyValues(JSON.parse('{"__proto__": {"gen_ai.system": "openai"}}')),
    ]) {
      expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
      expect(attrs['gen_ai.system']).toBeUndefined();
      expect(Object.keys(attrs)).toEqual(['__proto__']);
      expect(JSON.parse(JSON.stringify(attrs))).toEqual(JSON.parse('{"__proto__": {"gen_ai.system": "openai"}}'));
    }
  });
});
