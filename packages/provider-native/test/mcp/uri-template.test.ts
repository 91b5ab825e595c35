import { describe, expect, it } from 'vitest';
import { templateMatches } from '../../src/mcp/system-one/features.js';

describe('resource uri templates', () => {
  it('a placeholder stands for one or more characters other than /', () => {
    expect(templateMatches('docs://handbook/{section}', 'docs://handbook/refunds')).toBe(true);
    expect(templateMatches('docs://handbook/{section}', 'docs://handbook/')).toBe(false);
    expect(templateMatches('docs://handbook/{section}', 'docs://handbook/a/b')).toBe(false);
    expect(templateMatches('repo://{owner}/{name}/issues', 'repo://acme/mce/issues')).toBe(true);
    expect(templateMatches('repo://{owner}/{name}/issues', 'repo://acme/issues')).toBe(false);
    expect(templateMatches('file://{a}.{b}', 'file://notes.v2.md')).toBe(true);
    expect(templateMatches('file://{a}.{b}', 'file://notes')).toBe(false);
    expect(templateMatches('plain://x', 'plain://x')).toBe(true);
    expect(templateMatches('c://(x)+[y]*{id}', 'c://(x)+[y]*42')).toBe(true); // regex characters are literal
  });

  it('many adjacent placeholders against a long uri that does not fit answer at once (a regex backtracked for minutes)', () => {
    const template = `r://${Array.from({ length: 24 }, (_, i) => `{p${i}}`).join('')}`;
    expect(templateMatches(template, `r://${'a'.repeat(200)}/`)).toBe(false);
    expect(templateMatches(template, `r://${'a'.repeat(200)}`)).toBe(true);
  });
});
