/** The configurations the project shows its users open without an error: README's example and the repository's file. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MCEClient, openStore, parseMceConfig } from '../../src/index.js';

const repo = new URL('../../../../', import.meta.url);

async function opens(text: string, file: string): Promise<string[]> {
  const config = parseMceConfig(text, file);
  const client = await MCEClient.open({ config, store: await openStore('sqlite::memory:'), cache: false });
  const selected = Object.values(client.selection()).flat();
  await client.store.close();
  await client.close();
  return selected;
}

describe('documented configurations', () => {
  it("README's mce_config.yaml example (its plugin line aside) selects metrics with options they read", async () => {
    const readme = readFileSync(new URL('README.md', repo), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const withoutPlugin = example.split('\n').filter((line) => !line.startsWith('providers:')).join('\n');
    expect(await opens(withoutPlugin, 'README.md')).toEqual(
      expect.arrayContaining(['AnswerRelevancy', 'MCPUse', 'ToolUtilizationAccuracy']),
    );
  });

  it("docs/sdk-metrics.md's example declares and selects sdk metrics", async () => {
    const doc = readFileSync(new URL('docs/sdk-metrics.md', repo), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(await opens(example, 'docs/sdk-metrics.md')).toEqual(['sdk:Politeness', 'ToolCallsPerLLMCall', 'SlowCallShare', 'sdk:Politeness']);
  });

  it("the repository's mce_config.yaml", async () => {
    expect(await opens(readFileSync(new URL('mce_config.yaml', repo), 'utf8'), 'mce_config.yaml')).toContain('CyclesCount');
  });
});
