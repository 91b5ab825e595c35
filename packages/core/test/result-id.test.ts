import { describe, expect, it } from 'vitest';
import { hash64, resultId, resultIdAt, resultIdBlock, resultIdHead, resultIdPrefix, sessionDigest, taskIdPrefix } from '@mce/core';

describe('result ids', () => {
  it('prefix = hash64(sha256(runId NUL session)[:16] NUL provider NUL name NUL level)', () => {
    // Worked out independently (Python hashlib and a Python port of the 64-bit hash).
    expect(sessionDigest('run-1', 's1')).toBe('e6f32933d05cf71f');
    expect(taskIdPrefix('e6f32933d05cf71f', 'mce', 'Duration', 'LLMCall')).toBe('30299dc08474174e');
    expect(resultIdPrefix('run-1', 's1', 'mce', 'Duration', 'LLMCall')).toBe('30299dc08474174e');
  });

  it('id = prefix and a 64-bit hash of the measured id, UUID-shaped; stable across versions', () => {
    expect(hash64('span-1')).toBe('9c3b75c88689a841');
    expect(hash64('')).toBe('488bdcb81aee8d83');
    expect(resultId('30299dc08474174e', 'span-1')).toBe('30299dc0-8474-174e-9c3b-75c88689a841');
  });

  it('a task\'s id block holds the same ids, element by element', () => {
    const block = resultIdBlock(resultIdHead('30299dc08474174e'), [{ id: 'span-1' }, { id: '' }, { id: 'span-1' }]);
    expect(block.length).toBe(108);
    expect([0, 1, 2].map((i) => resultIdAt(block, i))).toEqual([
      '30299dc0-8474-174e-9c3b-75c88689a841',
      '30299dc0-8474-174e-488b-dcb81aee8d83',
      '30299dc0-8474-174e-9c3b-75c88689a841',
    ]);
    expect(resultIdBlock(resultIdHead('30299dc08474174e'), [])).toBe('');
  });

  it('blocks made one after another, small or beyond the reused buffer, keep their own ids', () => {
    const head = resultIdHead('30299dc08474174e');
    const first = resultIdBlock(head, [{ id: 'span-1' }]);
    const many = Array.from({ length: 120_000 }, (_, i) => ({ id: i === 119_999 ? '' : `s${i}` }));
    const big = resultIdBlock(head, many);
    const again = resultIdBlock(head, [{ id: '' }, { id: 'span-1' }]);
    expect(first).toBe('30299dc0-8474-174e-9c3b-75c88689a841');
    expect(resultIdAt(big, 119_999)).toBe('30299dc0-8474-174e-488b-dcb81aee8d83');
    expect(resultIdAt(big, 7)).toBe(resultId('30299dc08474174e', 's7'));
    expect(again).toBe('30299dc0-8474-174e-488b-dcb81aee8d8330299dc0-8474-174e-9c3b-75c88689a841');
  });

  it('differs for every field', () => {
    const base = ['r', 's', 'mce', 'Duration', 'LLMCall'] as const;
    const ids = new Set([resultIdPrefix(...base)]);
    for (let i = 0; i < base.length; i++) {
      const changed = [...base] as [string, string, string, string, string];
      changed[i] += 'x';
      ids.add(resultIdPrefix(...changed));
    }
    // Field boundaries matter: ("ab","c") ≠ ("a","bc").
    ids.add(resultIdPrefix('r', 's', 'mce', 'Dur', 'ationLLMCall'));
    expect(ids.size).toBe(7);
    const elements = new Set(Array.from({ length: 100_000 }, (_, i) => hash64(`span-${i}`)));
    expect(elements.size).toBe(100_000);
  });
});
