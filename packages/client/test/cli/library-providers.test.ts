/**
 * The library-backed provider packages (@mce/provider-ragas, -deepeval, -opik) in the catalog: listed and shown when
 * installed, listed with what to install when not, a run selecting one that is missing told what to install, and the
 * known-providers table in step with each package's catalog.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deepevalProvider } from '@mce/provider-deepeval';
import { opikProvider } from '@mce/provider-opik';
import { ragasProvider } from '@mce/provider-ragas';
import { KNOWN_PROVIDERS, installHint } from '../../src/plugins/known-providers.js';
import { runCli, tempWorkspace } from './run-cli.js';

type Row = { name: string; provider: string; implemented?: boolean; install?: string; levels: string[] };
const offline = () => {
  const ws = tempWorkspace();
  return { dir: ws.dir, env: { ...ws.env, MCE_PROVIDER_DISCOVERY: 'off' } };
};

describe('library-backed providers in the catalog', () => {
  it('the known-providers table lists each package\'s metrics', () => {
    expect(KNOWN_PROVIDERS.ragas?.metrics).toEqual(ragasProvider.metrics().map((m) => m.metadata.name));
    expect(KNOWN_PROVIDERS.deepeval?.metrics).toEqual(deepevalProvider.metrics().map((m) => m.metadata.name));
    expect(KNOWN_PROVIDERS.opik?.metrics).toEqual(opikProvider.metrics().map((m) => m.metadata.name));
    for (const provider of [ragasProvider, deepevalProvider, opikProvider]) {
      const deterministic = provider.metrics().filter((m) => m.metadata.nature === 'deterministic').map((m) => m.metadata.name);
      expect(KNOWN_PROVIDERS[provider.name]?.deterministic ?? []).toEqual(deterministic);
    }
    expect(installHint('deepeval.FaithfulnessMetric')).toBe(
      ' (deepeval:Faithfulness is computed by @mce/provider-deepeval, which is not installed: npm install @mce/provider-deepeval)',
    );
    expect(installHint('acme:Thing')).toBeUndefined();
  });

  it('installed (discovered beside mce): listed by provider, shown, and in --abstract as implemented', async () => {
    const ws = tempWorkspace();
    const listed = (await runCli(['metric', 'list', '--all', '--provider', 'ragas', '--json'], ws)).json<Row[]>();
    expect(listed.map((r) => r.name)).toEqual(KNOWN_PROVIDERS.ragas?.metrics);
    const shown = await runCli(['metric', 'show', 'deepeval:Faithfulness'], ws);
    expect(shown.stdout).toContain('Faithfulness (provider deepeval)');
    expect(shown.stdout).toContain('  options:      model, threshold, strict_mode, include_reason, penalize_ambiguous_claims');
    const alias = (await runCli(['metric', 'show', 'deepeval.AnswerRelevancyMetric', '--json'], ws)).json<Row>();
    expect([alias.provider, alias.name]).toEqual(['deepeval', 'AnswerRelevancy']);
    const abstract = (await runCli(['metric', 'list', '--abstract', '--json'], ws)).json<Row[]>();
    expect(abstract.find((r) => r.provider === 'ragas' && r.name === 'Faithfulness')).toMatchObject({ implemented: true });
    const opik = (await runCli(['metric', 'list', '--all', '--provider', 'opik', '--json'], ws)).json<Row[]>();
    expect(opik.map((r) => r.name)).toEqual(KNOWN_PROVIDERS.opik?.metrics);
    const contains = await runCli(['metric', 'show', 'opik:Contains'], ws);
    expect(contains.stdout).toContain('  options:      substring, case_sensitive');
    const judge = (await runCli(['metric', 'show', 'opik.AgentTaskCompletionJudge', '--json'], ws)).json<Row & { nature: string }>();
    expect([judge.provider, judge.name, judge.nature, judge.levels]).toEqual(['opik', 'AgentTaskCompletionJudge', 'llm-judged', ['Session', 'MASCall', 'AgentCall']]);
  });

  it('not installed: listed with the package to install; show and a run say what to install', async () => {
    const ws = offline();
    const listed = (await runCli(['metric', 'list', '--provider', 'deepeval', '--json'], ws)).json<Row[]>();
    expect(listed.map((r) => [r.name, r.install])).toContainEqual(['Faithfulness', '@mce/provider-deepeval']);
    const human = await runCli(['metric', 'list', '--provider', 'ragas'], ws);
    expect(human.stdout).toMatch(/Faithfulness\s+ragas\s+llm-judged\s+—\s+dimensionless\s+install @mce\/provider-ragas/);
    const abstract = (await runCli(['metric', 'list', '--abstract', '--json'], ws)).json<Row[]>();
    expect(abstract.find((r) => r.provider === 'opik' && r.name === 'Hallucination')).toMatchObject({ implemented: false, install: '@mce/provider-opik' });
    const opik = (await runCli(['metric', 'list', '--provider', 'opik', '--json'], ws)).json<Array<Row & { nature: string }>>();
    expect(opik.filter((r) => r.nature === 'deterministic').map((r) => r.name)).toEqual(['IsJson', 'Contains', 'RegexMatch', 'ExactMatch']);
    const shown = await runCli(['metric', 'show', 'ragas:Faithfulness'], ws);
    expect([shown.code, shown.stdout.split('\n')[0]]).toEqual([0, 'Faithfulness (provider ragas) — not installed: npm install @mce/provider-ragas']);
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'metrics:\n  Session: [deepeval.BiasMetric]\n');
    const run = await runCli(['metric', 'list'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'Unknown metric "deepeval.BiasMetric" selected at Session (deepeval:Bias is computed by @mce/provider-deepeval, which is not installed: npm install @mce/provider-deepeval)',
    );
  });
});
