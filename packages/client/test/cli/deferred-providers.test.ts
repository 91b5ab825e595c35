/**
 * Discovered provider packages that declare their catalogue (package.json `mce.catalog`) are listed, shown and
 * checked from it without being imported, and imported when a computation selects one of their metrics. mce's own
 * packages' catalogues are kept in step with their code here; code that fails to load or does not match its catalogue
 * fails its metrics (never a score) and leaves the others computing.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricProvider, SessionComputation } from '@mce/core';
import { deepevalProvider } from '@mce/provider-deepeval';
import { opikProvider } from '@mce/provider-opik';
import { ragasProvider } from '@mce/provider-ragas';
import { sdkProvider } from '@mce/provider-sdk';
import { catalogOf, readCatalog } from '../../src/plugins/provider-catalog.js';
import { startScriptedLLMServer, type ScriptedLLMServer, type ScriptedStep } from '../../../../test-support/scripted-llm-server.mjs';
import { libraries, moduleRecorder, ownFiles, record, repo } from './module-recorder.js';
import { runCli, tempWorkspace } from './run-cli.js';

const example = join(repo, 'examples/sessions/single-agent-tool.json');
const recorder = moduleRecorder();
afterAll(() => rmSync(recorder.dir, { recursive: true, force: true }));

/** Files of a provider package's code, or of the copies of core and provider-native it imports, or of its library. */
const providerCode = (loaded: string[]) => [
  ...ownFiles(loaded).filter((f) => /^packages\/(provider-ragas|provider-deepeval|provider-opik|provider-sdk|core|provider-native)\//.test(f)),
  ...[...libraries(loaded)].filter((lib) => ['autoevals', 'deepeval', 'opik', '@ai-sdk/openai'].includes(lib)),
];

describe("mce's provider packages' catalogues", () => {
  it.each<[string, MetricProvider]>([
    ['provider-ragas', ragasProvider],
    ['provider-deepeval', deepevalProvider],
    ['provider-opik', opikProvider],
  ])('%s: package.json mce.catalog is what its code exports', (folder, provider) => {
    const dir = join(repo, 'packages', folder);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; files: string[]; mce: { catalog: string } };
    const written = JSON.parse(readFileSync(join(dir, manifest.mce.catalog), 'utf8')) as unknown;
    // Without a version of its own: the catalogue follows the package's version through releases.
    expect(written, `run: npm run build && mce provider catalog packages/${folder} --write`).toEqual(catalogOf([provider], manifest.version));
    expect(readCatalog(dir, manifest.mce.catalog, manifest.version).providers.map((p) => p.version)).toEqual([provider.version]);
    expect(manifest.files).toContain(manifest.mce.catalog.replace(/^\.\//, '')); // packed with the package
  });

  it('provider-sdk: an inline catalogue of one provider without metrics, imported to read sdk_metrics when the file has them', () => {
    const dir = join(repo, 'packages', 'provider-sdk');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; mce: { catalog: { providers: unknown } } };
    expect(manifest.mce.catalog.providers).toEqual(catalogOf([sdkProvider([])], manifest.version).providers);
    const catalog = readCatalog(dir, manifest.mce.catalog, manifest.version);
    expect(catalog.reads).toEqual(['sdk_metrics']);
    expect(catalog.providers.map((p) => p.version)).toEqual([manifest.version]);
  });
});

describe('the mce command with the provider packages installed', () => {
  let server: ScriptedLLMServer;
  beforeAll(async () => {
    server = await startScriptedLLMServer();
  });
  afterAll(() => server.close());

  it('lists, shows and checks their metrics without importing any of their code', async () => {
    const listed = await record(recorder, ['metric', 'list', '--all', '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const keys = (JSON.parse(listed.stdout) as { name: string; provider: string }[]).map((m) => `${m.provider}:${m.name}`);
    expect(keys).toEqual(expect.arrayContaining(['mce:Duration', 'ragas:Faithfulness', 'deepeval:Bias', 'opik:Moderation']));
    expect(providerCode(listed.loaded)).toEqual([]);
    for (const argv of [['metric', 'list'], ['metric', 'list', '--abstract'], ['metric', 'show', 'ragas:Faithfulness'], ['provider', 'list']]) {
      const run = await record(recorder, argv);
      expect([run.status, run.stderr, providerCode(run.loaded)], argv.join(' ')).toEqual([0, '', []]);
    }
  });

  it('imports provider-sdk only when the file declares sdk_metrics, and then lists them', async () => {
    const config = join(recorder.dir, 'sdk.yaml');
    writeFileSync(config, 'sdk_metrics:\n  - name: ToolsPerLLMCall\n    kind: deterministic\n    levels: [Session]\n    expression: count(ToolCall) / count(LLMCall)\n');
    const run = await record(recorder, ['metric', 'list', '--all', '--json'], { MCE_CONFIG: config });
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { name: string; provider: string }[]).filter((m) => m.provider === 'sdk').map((m) => m.name)).toEqual(['ToolsPerLLMCall']);
    const loaded = providerCode(run.loaded);
    expect(loaded).toContain('packages/provider-sdk/dist/index.js');
    expect(loaded.filter((f) => /provider-(ragas|deepeval|opik)/.test(f))).toEqual([]);
  });

  it('imports ragas when a computation selects ragas:Faithfulness, and only ragas; its score is the judge\'s', async () => {
    server.setScript((body): ScriptedStep => {
      const tool = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
      if (tool === 'extract_statements') return { toolCalls: [{ name: tool, arguments: { statements: ['It is 14 °C in Lyon.', 'It is sunny.'] } }] };
      if (tool === 'judge_statements') {
        const faithfulness = [
          { statement: 'It is 14 °C in Lyon.', verdict: 1, reason: 'the tool said so' },
          { statement: 'It is sunny.', verdict: 0, reason: 'the tool said cloudy' },
        ];
        return { toolCalls: [{ name: tool, arguments: { faithfulness } }] };
      }
      return { status: 400, error: { message: `unexpected tool ${tool}` } };
    });
    const judge = { LLM_MODEL_NAME: 'gpt-4o-mini', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_MAX_RETRIES: '0' };
    const run = await record(recorder, ['compute', '--input', example, '--no-store', '--json', '--metrics', 'Duration,ragas:Faithfulness'], judge);
    expect(run.status, run.stderr).toBe(0);
    const [session] = (JSON.parse(run.stdout) as { sessions: SessionComputation[] }).sessions;
    expect(session?.failed).toEqual([]);
    const atSession = session?.results.filter((r) => r.level === 'Session').map((r) => [r.provider, r.name, r.result]);
    expect(atSession).toEqual([['mce', 'Duration', 4200], ['ragas', 'Faithfulness', 0.5]]);
    const code = providerCode(run.loaded);
    expect(code).toEqual(expect.arrayContaining(['packages/provider-ragas/dist/index.js', 'autoevals']));
    expect(code.filter((f) => /deepeval|opik/.test(f))).toEqual([]);
  });
});

function installPackage(root: string, name: string, mce: Record<string, unknown>, code: string): string {
  const dir = join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'provider.mjs', mce: { provider: true, ...mce } }));
  writeFileSync(join(dir, 'provider.mjs'), code);
  return dir;
}

const SPAN_COUNT = {
  name: 'SpanCount', levels: ['Session'], nature: 'deterministic', unit: 'count', valueRange: 'non-negative integer',
  description: 'Calls in the session', requirements: [], dependsOn: [],
};
const catalog = (provider: string, metric: Record<string, unknown> = SPAN_COUNT) => ({
  providers: [{ name: provider, version: '2.0.0', description: `${provider} metrics`, metrics: [metric] }],
});
const providerCodeOf = (provider: string, metric: Record<string, unknown> = SPAN_COUNT) => `
export default {
  name: '${provider}', description: '${provider} metrics', version: '2.0.0',
  metrics: () => [{
    metadata: { ...${JSON.stringify(metric)}, provider: '${provider}' },
    compute: (s) => ({ value: s.agentCalls.length + s.llmCalls.length + s.toolCalls.length, reasoning: 'counted' }),
  }],
};
`;

/**
 * A project with packages that declare their catalogue: one whose code works (the catalogue inline), one whose code
 * throws at import, one whose code does not match its catalogue (a file), and one whose catalogue is malformed.
 */
function project() {
  const ws = tempWorkspace();
  installPackage(ws.dir, 'acme-mce', { catalog: catalog('acme') }, providerCodeOf('acme'));
  installPackage(ws.dir, 'broken-mce', { catalog: catalog('broken') }, "throw new Error('boom at import');\n");
  const drifted = installPackage(ws.dir, 'drifted-mce', { catalog: './catalog.json' }, providerCodeOf('drifted', { ...SPAN_COUNT, levels: ['Session', 'AgentCall'] }));
  writeFileSync(join(drifted, 'catalog.json'), JSON.stringify(catalog('drifted')));
  installPackage(ws.dir, 'malformed-mce', { catalog: { providers: [{ name: 'malformed', version: '1', description: '', metrics: [{ name: 'X' }] }] } }, '');
  return ws;
}

const OWN = new Set(['mce', 'ragas', 'deepeval', 'opik', 'sdk']);

describe('a discovered package with a catalogue', () => {
  it('is listed from the catalogue: its code is not run (a broken import is not noticed), a malformed catalogue is named', async () => {
    const ws = project();
    const run = await runCli(['provider', 'list', '--json'], ws);
    expect(run.code).toBe(0);
    const listed = run.json<{ name: string; version: string; metrics: string[] }[]>().filter((p) => !OWN.has(p.name));
    expect(listed.map((p) => [p.name, p.version, p.metrics])).toEqual([
      ['acme', '2.0.0', ['SpanCount']],
      ['broken', '2.0.0', ['SpanCount']],
      ['drifted', '2.0.0', ['SpanCount']],
    ]);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^mce: warning: provider package "malformed-mce" \(.*malformed-mce\) is left out: package.json "mce.catalog": .*providers\.0\.metrics\.0\.levels/),
    ]);
    const shown = await runCli(['metric', 'show', 'broken:SpanCount', '--json'], ws);
    expect([shown.code, shown.json<{ levels: string[]; implemented: boolean }>()]).toMatchObject([0, { levels: ['Session'], implemented: true }]);
  });

  it('is imported when its metric is computed; code that fails to load or does not match fails its metrics, not the others', async () => {
    const ws = project();
    const run = await runCli(['compute', '--input', example, '--no-store', '--json', '--metrics', 'Duration,acme:SpanCount,broken:SpanCount,drifted:SpanCount'], ws);
    expect(run.code).toBe(0); // failed metrics are in the output, as any other failure
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    expect(c.results.filter((r) => r.level === 'Session').map((r) => [r.provider, r.name, r.result])).toEqual([['mce', 'Duration', 4200], ['acme', 'SpanCount', 4]]);
    // A failure names no provider: each is told by its message, which names the package.
    expect(c.failed.map((f) => [f.name, f.level, f.error])).toEqual([
      ['SpanCount', 'Session', expect.stringMatching(/^PluginError: provider package "broken-mce" \(.*\): cannot load "broken-mce": boom at import$/)],
      [
        'SpanCount',
        'Session',
        expect.stringMatching(
          /^PluginError: provider package "drifted-mce" \(.*\): its code does not match its catalogue \(package\.json "mce\.catalog"\): metric "drifted:SpanCount": levels is \["Session","AgentCall"\] in the code, \["Session"\] in the catalogue$/,
        ),
      ],
    ]);
    expect(run.stderr).toContain('boom at import — its metrics fail');
  });

  it('mce provider catalog prints the catalogue of a package\'s code, and --write writes the file mce.catalog names', async () => {
    const ws = tempWorkspace();
    const dir = installPackage(ws.dir, 'fresh-mce', { catalog: './mce-catalog.json' }, providerCodeOf('fresh'));
    const printed = await runCli(['provider', 'catalog', dir], ws);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.json()).toEqual(catalog('fresh'));
    const written = await runCli(['provider', 'catalog', 'node_modules/fresh-mce', '--write'], ws);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'mce-catalog.json'), 'utf8'))).toEqual(catalog('fresh'));
    const none = await runCli(['provider', 'catalog', ws.dir], ws);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('package.json: not found')]);
  });
});
