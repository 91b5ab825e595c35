/** How system_one MCPUse combines its answers: a weighted mean where a low answer weighs more. */
import { describe, expect, it } from 'vitest';
import { DECISIVE_SHARPNESS, decisiveWeights } from '@mce/provider-native';

const EQUAL = { primitives: 1 / 3, arguments: 1 / 3, task: 1 / 3 };
const mean = (v: { primitives: number; arguments: number; task: number }, configured = EQUAL) => {
  const w = decisiveWeights(v, configured);
  return w.primitives * v.primitives + w.arguments * v.arguments + w.task * v.task;
};

describe('decisive mean', () => {
  it('answers that agree keep their value; weights always sum to 1', () => {
    expect(mean({ primitives: 0.8, arguments: 0.8, task: 0.8 })).toBeCloseTo(0.8, 12);
    const w = decisiveWeights({ primitives: 0.9, arguments: 0.1, task: 0.5 }, EQUAL);
    expect(w.primitives + w.arguments + w.task).toBeCloseTo(1, 12);
  });

  it('one decisive failure dominates: right tool and arguments but an unsupported answer scores low', () => {
    const v = { primitives: 1, arguments: 1, task: 0 };
    // weights 1 : 1 : e^3 (= 20.1), so the score is 2 / (2 + e^3) = 0.090, not the plain mean 0.667
    expect(DECISIVE_SHARPNESS).toBe(3);
    expect(mean(v)).toBeCloseTo(2 / (2 + Math.exp(3)), 12);
    expect(mean(v)).toBeLessThan(0.1);
  });

  it('an answer one level lower weighs e times as much', () => {
    const w = decisiveWeights({ primitives: 1, arguments: 2 / 3, task: 1 / 3 }, EQUAL);
    expect(w.arguments / w.primitives).toBeCloseTo(Math.E, 12);
    expect(w.task / w.arguments).toBeCloseTo(Math.E, 12);
  });

  it('a configured weight of 0 leaves that answer out, however low', () => {
    const w = decisiveWeights({ primitives: 0.9, arguments: 0.9, task: 0 }, { primitives: 0.5, arguments: 0.5, task: 0 });
    expect(w).toEqual({ primitives: 0.5, arguments: 0.5, task: 0 });
  });
});
