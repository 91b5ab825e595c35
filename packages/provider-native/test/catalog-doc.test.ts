import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogMarkdown } from '../src/catalog-doc.js';
import { nativeProvider } from '../src/native-provider.js';

describe('docs/metrics.md', () => {
  const metadata = nativeProvider.metrics().map((m) => m.metadata);

  it('is the page written from the metrics\' metadata (run packages/provider-native/scripts/write-metrics-doc.mjs)', () => {
    const committed = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
    expect(committed).toBe(catalogMarkdown(metadata));
  });

  it('lists every native metric once, under its nature, with its description and options', () => {
    const page = catalogMarkdown(metadata);
    for (const m of metadata) {
      expect(page.split('\n').filter((line) => line === `### ${m.name}`), m.name).toHaveLength(1);
      expect(page).toContain(m.description);
    }
    expect(page).toContain('### CyclesCount\n\nNumber of repeated blocks');
    expect(page.indexOf('## Deterministic metrics')).toBeLessThan(page.indexOf('### Duration'));
    expect(page.indexOf('## LLM-judged metrics')).toBeLessThan(page.indexOf('### AnswerRelevancy'));
    expect(page).toMatch(/### AnswerRelevancy\n[\s\S]*?- Options: `model`\n/);
    expect(page).toMatch(/### Duration\n[\s\S]*?- Options: none\n/);
  });
});
