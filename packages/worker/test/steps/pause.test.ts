/** The pause after a failed batch: doubling in a row, up to 8 × the retry delay, ended early by a stored part. */
import { describe, expect, it } from 'vitest';
import { FailurePause } from '../../src/worker/pause.js';

describe('FailurePause', () => {
  it('doubles with each failure in a row up to 8 × retry_delay_ms, and starts short again after a success', () => {
    let now = 1_000;
    const pause = new FailurePause(100, () => now);
    expect([pause.begin(), pause.begin(), pause.begin(), pause.begin(), pause.begin()]).toEqual([100, 200, 400, 800, 800]);
    expect(pause.remainingMs()).toBe(800);
    now += 800;
    expect(pause.remainingMs()).toBe(0);
    pause.succeeded();
    expect(pause.begin()).toBe(100);
  });

  it('is ended early only by the failure that began it, not after a later one paused anew', () => {
    let now = 0;
    const pause = new FailurePause(100, () => now);
    pause.begin();
    const first = pause.resumeAt;
    now = 10;
    pause.begin();
    expect(pause.endIfStill(first)).toBe(false);
    expect(pause.remainingMs()).toBeGreaterThan(0);
    expect(pause.endIfStill(pause.resumeAt)).toBe(true);
    expect(pause.remainingMs()).toBeLessThanOrEqual(0);
  });
});
