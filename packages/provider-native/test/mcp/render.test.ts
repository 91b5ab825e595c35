import { describe, expect, it } from 'vitest';
import { renderServers } from '@mce/provider-native';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('MCP views for the judge', () => {
  it('clips a long text between characters, never inside a surrogate pair (a lone half breaks strict JSON parsers)', () => {
    // The input schema is clipped at 600 UTF-16 units; `{"d":"` is 6, so the emoji's first half is unit 600.
    const schema = { d: `${'x'.repeat(593)}🌤 sunny` };
    const text = renderServers([{ name: 'weather', tools: [{ name: 'forecast', inputSchema: schema }], resources: [], prompts: [] }]);
    expect(LONE_SURROGATE.test(text)).toBe(false);
    expect(text).toContain(`${'x'.repeat(593)}… [${JSON.stringify(schema).length - 599} more characters]`);
  });
});
