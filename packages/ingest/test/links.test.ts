/** The MAS call of an element without a MAS ancestor (links.ts `MasWindows`), shared by the normaliser and the store. */
import { describe, expect, it } from 'vitest';
import type { MASCall } from '@mce/core';
import { MasWindows } from '../src/links.js';

const mas = (id: string, traceId: string, startTime: number, endTime: number): MASCall => ({
  kind: 'MASCall', id, traceId, name: id, startTime, endTime, status: 'ok',
});

describe('MAS windows', () => {
  // In start order, as both callers give them: w1 (trace T1) holds 0..100, w2 (T2) 50..150, w3 (T3) 60..120, and the
  // implicit MAS call of trace T4 (its id is the trace id) 300..400.
  const windows = new MasWindows([mas('w1', 'T1', 0, 100), mas('w2', 'T2', 50, 150), mas('w3', 'T3', 60, 120), mas('T4', 'T4', 300, 400)]);

  it('the first MAS call of the element\'s own trace whose window holds its start, both ends included', () => {
    expect([0, 70, 100].map((t) => windows.of('T1', t))).toEqual(['w1', 'w1', 'w1']);
    expect(windows.of('T2', 60)).toBe('w2');
  });

  it('else the last MAS call of any trace whose window holds the start', () => {
    expect(windows.of('T9', 70)).toBe('w3');
    expect(windows.of('T1', 110)).toBe('w3');
    expect(windows.of(undefined, 130)).toBe('w2');
    expect(windows.of('T9', 150)).toBe('w2');
  });

  it('else the implicit MAS call of its trace, whatever its window; else none', () => {
    expect(windows.of('T4', 500)).toBe('T4');
    expect(windows.of('T4', 350)).toBe('T4');
    expect(windows.of('T9', 500)).toBeUndefined();
    expect(windows.of(undefined, 500)).toBeUndefined();
    expect(new MasWindows([]).of('T1', 0)).toBeUndefined();
  });
});
