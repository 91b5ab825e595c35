import { describe, expect, it } from 'vitest';
import { hash64, resultId, resultIdPrefix } from '@mce/core';

describe('result ids', () => {
  it('prefix = first 64 bits of SHA-256 over runId, session, provider, name, level (NUL-separated)', () => {
    // Worked out independently: sha256("run-1\0s1\0mce\0Duration\0LLMCall")[:16].
    expect(resultIdPrefix('run-1', 's1', 'mce', 'Duration', 'LLMCall')).toBe('f5ec709aaba68fb2');
  });

  it('id = prefix and a 64-bit hash of the measured id, UUID-shaped; stable across versions', () => {
    expect(hash64('span-1')).toBe('9c3b75c88689a841');
    expect(hash64('')).toBe('488bdcb81aee8d83');
    expect(resultId('f5ec709aaba68fb2', 'span-1')).toBe('f5ec709a-aba6-8fb2-9c3b-75c88689a841');
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
