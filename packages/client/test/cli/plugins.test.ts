/** Provider plugins named in mce_config.yaml: loaded, listed, computed and stored like the native metrics. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SessionComputation } from '@mce/core';
import { packageVersion } from '@mce/provider-native';
import { runCli, tempWorkspace } from './run-cli.js';

/** The built-in provider reports its package's version. */
const NATIVE_VERSION = packageVersion(new URL('../../../provider-native/package.json', import.meta.url));
const example = fileURLToPath(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url));

const PLUGIN = `
export default {
  name: 'acme',
  description: 'Acme metrics',
  version: '1.2.0',
  metrics: () => [{
    metadata: { name: 'SpanCount', provider: 'acme', levels: ['Session'], nature: 'deterministic', unit: 'count',
      valueRange: 'non-negative integer', description: 'Calls in the session', requirements: [], dependsOn: [] },
    compute: (s) => ({ value: s.masCalls.length + s.agentCalls.length + s.taskCalls.length + s.llmCalls.length + s.toolCalls.length, reasoning: 'counted' }),
  }],
};
`;

function workspaceWithPlugin(providerLine: string) {
  const ws = tempWorkspace();
  mkdirSync(join(ws.dir, 'conf', 'plugins'), { recursive: true });
  writeFileSync(join(ws.dir, 'conf', 'plugins', 'acme.mjs'), PLUGIN);
  writeFileSync(join(ws.dir, 'conf', 'plugins', 'empty.mjs'), 'export const nothing = 1;\n');
  const config = join(ws.dir, 'conf', 'mce_config.yaml');
  writeFileSync(config, `providers: [${providerLine}]\nmetrics:\n  Session: [Duration, acme:SpanCount]\n`);
  return { ws, config };
}

/** mce's own library-backed provider packages (installed beside it, so discovered) are left out of these checks. */
const theirs = <T extends { name: string }>(listed: T[]) => listed.filter((p) => !['ragas', 'deepeval', 'opik', 'sdk'].includes(p.name));

describe('provider plugins', () => {
  it('loads a provider named in the config (path relative to the config file) and computes its metrics', async () => {
    const { ws, config } = workspaceWithPlugin('./plugins/acme.mjs');
    const providers = theirs((await runCli(['--config', config, 'provider', 'list', '--json'], ws)).json<{ name: string; version: string }[]>());
    expect(providers.map((p) => [p.name, p.version])).toEqual([['mce', NATIVE_VERSION], ['acme', '1.2.0']]);
    const listed = (await runCli(['--config', config, 'metric', 'list', '--json'], ws)).json<{ name: string; provider: string }[]>();
    expect(listed.map((m) => `${m.provider}:${m.name}`)).toEqual(['mce:Duration', 'acme:SpanCount']);

    const run = await runCli(['--config', config, 'compute', '--input', example, '--json'], ws);
    expect(run.code).toBe(0);
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    expect(c.results.map((r) => [r.provider, r.name, r.result])).toEqual([['mce', 'Duration', 4200], ['acme', 'SpanCount', 5]]);
    // Stored with its own Metric definition and read back.
    const stored = (await runCli(['--config', config, 'kg', 'metric', 'get', 'weather-001', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(stored.sessions[0]?.results.find((r) => r.name === 'SpanCount')).toMatchObject({ provider: 'acme', unit: 'count', result: 5 });
    // In the tables a plugin's metric is provider:name (it may share a built-in name), a built-in one its bare name.
    const human = (await runCli(['--config', config, 'kg', 'metric', 'get', 'weather-001'], ws)).stdout;
    expect(human).toMatch(/\n\S+\s+\(session\)\s+acme:SpanCount\s+5\s+count/);
    expect(human).toMatch(/\(session\)\s+Duration\s+4200\s+ms/);
    // Without the plugin, its stored results are still found by name (and by provider:name); a name nobody has is not.
    for (const name of ['SpanCount', 'acme:SpanCount']) {
      const without = (await runCli(['kg', 'metric', 'get', 'weather-001', '--metrics', name, '--json'], ws)).json<{ sessions: SessionComputation[] }>();
      expect(without.sessions[0]?.results.map((r) => [r.provider, r.name, r.result]), name).toEqual([['acme', 'SpanCount', 5]]);
    }
    const other = await runCli(['kg', 'metric', 'get', 'weather-001', '--metrics', 'other:SpanCount'], ws);
    expect([other.code, other.stderr]).toEqual([2, 'mce: Unknown metric "other:SpanCount"\n']);
  });

  it('names a plugin that cannot be loaded or exports no provider, with exit code 2', async () => {
    const missing = workspaceWithPlugin('./plugins/none.mjs');
    const a = await runCli(['--config', missing.config, 'compute', '--input', example, '--no-store'], missing.ws);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(`mce: ${missing.config}:1: providers: cannot load "./plugins/none.mjs"`);
    const empty = workspaceWithPlugin('./plugins/empty.mjs');
    const b = await runCli(['--config', empty.config, 'provider', 'list'], empty.ws);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`mce: ${empty.config}:1: providers: "./plugins/empty.mjs" exports no MetricProvider`);
    // The catalog commands load plugins too, and say where as well.
    const listed = await runCli(['--config', missing.config, 'metric', 'list'], missing.ws);
    expect([listed.code, listed.stderr.startsWith(`mce: ${missing.config}:1: providers: cannot load "./plugins/none.mjs"`)]).toEqual([2, true]);
  });

  const plugin = (metrics: string, name = 'acme') =>
    `export default { name: '${name}', description: 'd', version: '1.0.0', metrics: () => [${metrics}] };\n`;
  const metric = (name: string, provider = 'acme', levels = "['Session']") =>
    `{ metadata: { name: '${name}', provider: '${provider}', levels: ${levels}, nature: 'deterministic', unit: 'ms', valueRange: 'x', description: 'x', requirements: [], dependsOn: [] }, compute: () => ({ value: 1 }) }`;

  it('a plugin metric named like a built-in one is provider:name; the bare name stays the built-in metric', async () => {
    const { ws, config } = workspaceWithPlugin('./plugins/dup.mjs');
    writeFileSync(join(ws.dir, 'conf', 'plugins', 'dup.mjs'), plugin(metric('Duration')));
    writeFileSync(config, 'providers: [./plugins/dup.mjs]\nmetrics:\n  Session: [Duration, acme:Duration]\n');
    const run = await runCli(['--config', config, 'compute', '--input', example, '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    expect(c.results.map((r) => [r.provider, r.name, r.result])).toEqual([['mce', 'Duration', 4200], ['acme', 'Duration', 1]]);
    const shown = (await runCli(['--config', config, 'metric', 'show', 'Duration', '--json'], ws)).json<{ provider: string }>();
    expect(shown.provider).toBe('mce');
  });

  it("checks a plugin metric's options when it lists them, and passes any option to one that does not", async () => {
    const { ws, config } = workspaceWithPlugin('./plugins/opts.mjs');
    const listed = metric('Listed').replace('dependsOn: []', "dependsOn: [], options: ['threshold']");
    writeFileSync(join(ws.dir, 'conf', 'plugins', 'opts.mjs'), plugin(`${listed}, ${metric('Open')}`));
    const compute = (options: string) => {
      writeFileSync(config, `providers: [./plugins/opts.mjs]\nmetrics:\n  Session: [Listed, Open]\nmetric_options:\n${options}`);
      return runCli(['--config', config, 'compute', '--input', example, '--json', '--no-store'], ws);
    };
    const good = await compute('  Listed: {threshold: 0.5}\n  acme:Open: {anything: 1}\n');
    expect(good.code).toBe(0);
    const bad = await compute('  Listed: {treshold: 0.5}\n');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      `mce: ${config}: invalid configuration\n  ${config}:5: metric_options.Listed.treshold: acme:Listed has no option "treshold" (did you mean "threshold"?); its options: threshold\n`,
    ]);
  });

  it('names the plugin whose metrics the engine cannot take, with exit code 2', async () => {
    const cases: [string, string][] = [
      [plugin(metric('X', 'other')), 'lists metric "other:X" of another provider'],
      [plugin(`${metric('X')}, ${metric('X')}`), 'Metric "acme:X" is already registered'],
      [plugin(metric('X', 'acme', "['Bogus']")), 'metric "X": metadata.levels.0: Invalid option: expected one of "Session"|"MASCall"'],
      [plugin('42'), 'metric #1: (root): Invalid input: expected object, received number'],
      [plugin(metric('X').replace('dependsOn: []', "dependsOn: [], options: 'threshold'")), 'metric "X": metadata.options: Invalid input: expected array'],
      [plugin(metric('X').replace('dependsOn: []', "dependsOn: 'Duration'")), 'metric "X": metadata.dependsOn: Invalid input: expected array'],
      [plugin(metric('X').replace(', dependsOn: []', '')), 'metric "X": metadata.dependsOn: Invalid input: expected array, received undefined'],
      [plugin(metric('X').replace("nature: 'deterministic'", "nature: 'llm_judged'")), 'metric "X": metadata.nature: Invalid option: expected one of "deterministic"|"llm-judged"|"aggregate"'],
      [plugin(metric('X').replace('compute:', 'computeBatch: true, compute:')), 'metric "X": computeBatch: must be a function'],
      [plugin(metric('X'), 'mce'), 'Provider "mce" is already registered'],
    ];
    for (const [source, message] of cases) {
      const { ws, config } = workspaceWithPlugin('./plugins/bad.mjs');
      writeFileSync(join(ws.dir, 'conf', 'plugins', 'bad.mjs'), source);
      const run = await runCli(['--config', config, 'provider', 'list'], ws);
      expect([run.code, run.stderr], message).toEqual([2, expect.stringContaining('providers: "./plugins/bad.mjs" (provider ')]);
      expect(run.stderr).toContain(message);
    }
  });

  it('resolves a package named in providers from the config file\'s project, and refuses URLs', async () => {
    const { ws, config } = workspaceWithPlugin('acme-metrics');
    const pkg = join(ws.dir, 'conf', 'node_modules', 'acme-metrics');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'acme-metrics', type: 'module', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), PLUGIN);
    const listed = theirs((await runCli(['--config', config, 'provider', 'list', '--json'], ws)).json<{ name: string }[]>());
    expect(listed.map((p) => p.name)).toEqual(['mce', 'acme']);
    writeFileSync(config, "providers: ['data:text/javascript,export default 1']\n");
    const url = await runCli(['--config', config, 'provider', 'list'], ws);
    expect([url.code, url.stderr]).toEqual([2, expect.stringContaining('is a URL; name a package or a file relative to the config file')]);
  });
});
