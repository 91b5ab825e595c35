import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MetricResultSchema,
  describeIssues,
  fitsMetricResult,
  validateMetricResult,
} from '../src/ontology/schemas.js';
import { ONTOLOGY_LEVELS } from '../src/ontology/types.js';

const valid = {
  id: '0f3a9c1e-2b4d-4e6f-8a0b-1c2d3e4f5a6b',
  name: 'ToolErrorRate',
  result: 0.25,
  reasoning: '',
  evaluationModel: null,
  evaluationPromptTokenCount: 0,
  evaluationCompletionTokenCount: 0,
  evaluationTotalTokenCount: 0,
  evaluationCost: 0,
  timestamp: '2026-11-30T06:40:00.123Z',
  ofMetricType: 'native:ToolErrorRate',
  measures: { level: 'Session', id: 's1' },
  sessionId: 's1',
};

const zodAccepts = (value: unknown) => MetricResultSchema.safeParse(value).success;

// Values every field is tried with: the edges of each constraint (empty strings, NaN, ±Infinity, -0, fractions,
// unsafe integers, wrong types) and shapes the record check has to judge.
const oddValue = fc.constantFrom<unknown>(
  undefined, null, '', 'x', 'Session', 'LLMCall', 'session', 0, -0, 1, -1, 0.5, -0.5, NaN, Infinity, -Infinity,
  2 ** 53 - 1, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE, true, false, [], ['a'], {}, { a: 1 }, new Date(0),
  Object.create(null), { level: 'Session', id: 's1' }, { level: 'ToolCall', id: '' }, { level: 'Nope', id: 'x' },
  '2026-11-30T06:40:00Z', '2026-11-30T06:40:00+05:30', '2026-11-30T06:40:00', '2026-02-30T00:00:00Z',
  '2024-02-29T23:59:59.5-01:00', '2023-02-29T00:00:00Z', '2026-11-30t06:40:00z', '2026-11-30T24:00:00Z',
);
const timestamp = fc.oneof(
  fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc
    .tuple(
      fc.date({ min: new Date(0), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }),
      fc.constantFrom('+', '-'),
      fc.integer({ min: 0, max: 25 }),
      fc.integer({ min: 0, max: 61 }),
    )
    .map(([d, sign, h, m]) => `${d.toISOString().slice(0, 19)}${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
  fc.string(),
);
const symbolKeyed = { [Symbol('s')]: 1 };
const hidden = Object.defineProperty({ a: 1 }, Symbol('h'), { value: 2, enumerable: false });
const details = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue()),
  fc.constantFrom<unknown>(undefined, null, [], 'text', 3, new Map(), new Date(0), Object.create(null), symbolKeyed, hidden,
    { constructor: 'c' }, { constructor: () => 1 }, { __proto__: null, a: 1 }),
);
const validResult = fc.record({
  id: fc.string({ minLength: 1 }),
  name: fc.string({ minLength: 1 }),
  result: fc.double({ noNaN: true, noDefaultInfinity: true }),
  reasoning: fc.string(),
  evaluationModel: fc.option(fc.string(), { nil: null }),
  evaluationPromptTokenCount: fc.nat(),
  evaluationCompletionTokenCount: fc.nat(),
  evaluationTotalTokenCount: fc.maxSafeNat(),
  evaluationCost: fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }),
  timestamp: fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  ofMetricType: fc.string({ minLength: 1 }),
  measures: fc.record({ level: fc.constantFrom(...ONTOLOGY_LEVELS), id: fc.string({ minLength: 1 }) }),
  sessionId: fc.string({ minLength: 1 }),
  details: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
});
const fields = [...Object.keys(valid), 'details'];
/** A valid result with a few fields replaced by odd values, random timestamps or record-ish details. */
const mutatedResult = fc
  .tuple(
    validResult,
    fc.array(fc.tuple(fc.constantFrom(...fields), fc.oneof(oddValue, timestamp, details, fc.anything())), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
  )
  .map(([base, changes, dropOne]) => {
    const out: Record<string, unknown> = { ...base };
    for (const [field, value] of changes) out[field] = value;
    if (dropOne) delete out[changes[0]![0]];
    return out;
  });

/** Shapes the fast check deliberately leaves to zod (it says "not sure", zod decides). */
function deferredDetails(value: unknown): boolean {
  const d = (value as { details?: unknown } | null)?.details;
  if (typeof d !== 'object' || d === null) return false;
  const proto = Object.getPrototypeOf(d) as unknown;
  return (
    (proto !== Object.prototype && proto !== null) || Object.hasOwn(d, 'constructor') || Object.getOwnPropertySymbols(d).length > 0
  );
}

describe('MetricResult validation fast path', () => {
  it('accepts a typical result and names nothing', () => {
    expect(fitsMetricResult(valid)).toBe(true);
    expect(validateMetricResult(valid)).toEqual([]);
    expect(validateMetricResult({ ...valid, details: { errors: 1, calls: 4 } })).toEqual([]);
  });

  it('falls back to zod for the reasons of a rejected result', () => {
    expect(validateMetricResult({ ...valid, result: NaN, measures: { level: 'Span', id: 's1' } })).toEqual([
      { path: 'result', message: 'Invalid input: expected number, received NaN' },
      { path: 'measures.level', message: 'Invalid option: expected one of "Session"|"MASCall"|"AgentCall"|"TaskCall"|"LLMCall"|"ToolCall"' },
    ]);
    expect(validateMetricResult({ ...valid, evaluationCost: -0.5 })).toEqual([{ path: 'evaluationCost', message: 'must not be negative' }]);
    expect(validateMetricResult({ ...valid, timestamp: '2026-11-30T06:40:00' })).toEqual([
      { path: 'timestamp', message: 'Invalid ISO datetime' },
    ]);
  });

  it('edge values: the same answer as zod', () => {
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ ...valid, evaluationTotalTokenCount: 2 ** 53 - 1 }, true],
      [{ ...valid, evaluationTotalTokenCount: 2 ** 53 }, false],
      [{ ...valid, evaluationPromptTokenCount: 1.5 }, false],
      [{ ...valid, evaluationCost: -0 }, true],
      [{ ...valid, result: Infinity }, false],
      [{ ...valid, evaluationModel: undefined }, false],
      [{ ...valid, timestamp: '2024-02-29T00:00:00+14:00' }, true],
      [{ ...valid, timestamp: '2023-02-29T00:00:00Z' }, false],
      [{ ...valid, details: Object.create(null) as object }, true],
      [{ ...valid, details: [] }, false],
      [{ ...valid, extra: 'ignored' }, true],
    ];
    for (const [value, accepted] of cases) {
      expect(zodAccepts(value)).toBe(accepted);
      expect(fitsMetricResult(value)).toBe(accepted);
    }
  });

  it('property: every valid result passes the fast check, and validation answers as zod does', () => {
    fc.assert(
      fc.property(validResult, (value) => {
        expect(zodAccepts(value)).toBe(true);
        expect(fitsMetricResult(value)).toBe(true);
        expect(validateMetricResult(value)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: on random invalid and edge results the fast check accepts exactly what zod accepts', () => {
    let rejected = 0;
    fc.assert(
      fc.property(mutatedResult, (value) => {
        const byZod = MetricResultSchema.safeParse(value);
        const fast = fitsMetricResult(value);
        if (deferredDetails(value)) {
          // Only ever "yes" when zod says yes; "no" hands the decision to zod.
          if (fast) expect(byZod.success).toBe(true);
        } else {
          expect(fast).toBe(byZod.success);
        }
        expect(validateMetricResult(value)).toEqual(byZod.success ? [] : describeIssues(byZod.error));
        if (!byZod.success) rejected++;
      }),
      { numRuns: 5000 },
    );
    expect(rejected).toBeGreaterThan(2500); // the generator mostly produces invalid results, as intended
  });

  it('deferred record shapes still get zod\'s answer', () => {
    expect(fitsMetricResult({ ...valid, details: { [Symbol('s')]: 1 } })).toBe(false);
    expect(validateMetricResult({ ...valid, details: { [Symbol('s')]: 1 } })).not.toEqual([]);
    expect(fitsMetricResult({ ...valid, details: { constructor: 'c' } })).toBe(false);
    expect(validateMetricResult({ ...valid, details: { constructor: 'c' } })).toEqual([]);
    expect(validateMetricResult({ ...valid, details: new Map() })).toEqual([
      { path: 'details', message: 'Invalid input: expected record, received Map' },
    ]);
  });
});
