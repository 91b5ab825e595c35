/** /readyz: ready only when every condition holds. */
import { describe, expect, it } from 'vitest';
import { isReady, type ReadinessState } from '../../src/worker/readiness.js';

const ready: ReadinessState = { stopping: false, connected: true, consuming: true, queuesFailing: false, movesFailing: false, pauseLeftMs: 0 };

describe('isReady', () => {
  it('is ready when connected, consuming, with its queues and moves working and no pause', () => {
    expect(isReady(ready)).toBe(true);
  });

  it('is not ready when any one condition fails', () => {
    const failing: Partial<ReadinessState>[] = [
      { stopping: true },
      { connected: false },
      { consuming: false },
      { queuesFailing: true },
      { movesFailing: true },
      { pauseLeftMs: 1 },
    ];
    for (const change of failing) expect(isReady({ ...ready, ...change }), JSON.stringify(change)).toBe(false);
  });
});
