import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMceConfig } from '../../src/config/index.js';

describe('the repository mce_config.yaml', () => {
  it('is valid and selects the deterministic catalog at the session scope', () => {
    const config = parseMceConfig(readFileSync(new URL('../../../../mce_config.yaml', import.meta.url), 'utf8'));
    expect(config.engine).toEqual({ maxWorkers: 16, strategy: 'asyncio', recursive: true });
    expect(config.metrics?.Session).toHaveLength(17);
    expect(config.metrics?.ToolCall).toEqual(['Duration']);
    expect(config.worker).toMatchObject({ queue: 'new_session_to_mce', batch_size: 50 });
  });
});
