import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countCycles, countCyclesFast, countCyclesNaive } from '../../src/metrics/deterministic/index.js';

describe('fast cycle detection agrees with the definition', () => {
  it.each<[string, number, string[]]>([
    ['[A,B,A,B]', 1, ['A', 'B', 'A', 'B']],
    ['[A,A]', 0, ['A', 'A']],
    ['[A,A,A,A]', 1, ['A', 'A', 'A', 'A']],
    ['[A,B,C,A,B,C]', 1, ['A', 'B', 'C', 'A', 'B', 'C']],
    ['[A,B,B,A,B,B,A,B,B]', 2, ['A', 'B', 'B', 'A', 'B', 'B', 'A', 'B', 'B']],
    // blocks [A,A] at 0, 2 and 4; then 3 left, too short for another pair of blocks
    ['A×9', 3, Array<string>(9).fill('A')],
  ])('%s → %i', (_label, expected, seq) => {
    expect(countCyclesNaive(seq)).toBe(expected);
    expect(countCyclesFast(seq)).toBe(expected);
  });

  it('on random sequences over small alphabets (where repeats are frequent)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }).chain((size) => fc.array(fc.integer({ min: 0, max: size - 1 }), { maxLength: 300 })), (seq) => {
        expect(countCyclesFast(seq)).toBe(countCyclesNaive(seq));
      }),
      { numRuns: 400 },
    );
  });

  it('on sequences built from repeated random blocks (long squares)', () => {
    const repeated = fc
      .array(fc.tuple(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 })), {
        maxLength: 8,
      })
      .map((parts) => parts.flatMap(([block, times]) => Array.from({ length: times }, () => block).flat()));
    fc.assert(
      fc.property(repeated, (seq) => {
        expect(countCyclesFast(seq)).toBe(countCyclesNaive(seq));
      }),
      { numRuns: 300 },
    );
  });

  it('counts a whole run repeated twice as one block, in long sequences', () => {
    const run = Array.from({ length: 500 }, (_, i) => `step${(i * 7919) % 263}`);
    expect(countCyclesNaive([...run, ...run])).toBe(countCyclesFast([...run, ...run]));
    expect(countCycles([...run, ...run])).toBe(countCyclesNaive([...run, ...run]));
  });

  it('counts a square-free run repeated twice as exactly one block', () => {
    // Ternary Thue–Morse (the number of 1s between consecutive 0s of the Thue–Morse word) has no square; a first
    // step seen nowhere else means no block shorter than the run can repeat from the start.
    const isThueMorseZero = (i: number) => i.toString(2).split('1').length % 2 === 1; // an even count of 1 bits
    const zeros = Array.from({ length: 2000 }, (_, i) => i).filter(isThueMorseZero);
    const run = ['start', ...zeros.slice(1, 500).map((z, k) => `step${z - zeros[k]! - 1}`)];
    expect(new Set(run.slice(1)).size).toBe(3);
    expect(countCyclesNaive(run)).toBe(0);
    expect(countCyclesNaive([...run, ...run])).toBe(1);
    expect(countCyclesFast([...run, ...run])).toBe(1);
  });

  it("counts 40,000 steps without the definition's quadratic scan", () => {
    let x = 12345;
    const seq = Array.from({ length: 40_000 }, () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x % 9;
    });
    // No timing assertion: an accidental quadratic fallback (the naive scan takes minutes) runs past the test runner's
    // timeout. The count is the one the definition gives, checked on a prefix the naive scan can afford.
    const fast = countCyclesFast(seq);
    expect(fast).toBeGreaterThan(0);
    expect(countCyclesFast(seq.slice(0, 2_000))).toBe(countCyclesNaive(seq.slice(0, 2_000)));
  });
});
