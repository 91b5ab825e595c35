/**
 * Installed provider packages found without configuration (package.json `mce.provider`): listed with where they came
 * from, computed, switched off by `provider_discovery: false` or MCE_PROVIDER_DISCOVERY, and a broken one named and left
 * out while the others load.
 */
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

const ACME = `
export default {
  name: 'acme', description: 'Acme metrics', version: '2.0.0',
  metrics: () => [{
    metadata: { name: 'SpanCount', provider: 'acme', levels: ['Session'], nature: 'deterministic', unit: 'count',
      valueRange: 'non-negative integer', description: 'Calls in the session', requirements: [], dependsOn: [] },
    compute: (s) => ({ value: s.agentCalls.length + s.llmCalls.length + s.toolCalls.length, reasoning: 'counted' }),
  }],
};
`;

function installPackage(root: string, name: string, manifest: Record<string, unknown>, files: Record<string, string>): string {
  const dir = join(root, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', ...manifest }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** A project with a working provider package, a broken one, one whose path leaves it, and an ordinary package. */
function project() {
  const ws = tempWorkspace();
  installPackage(ws.dir, 'acme-mce-metrics', { version: '2.0.0', main: 'provider.mjs', mce: { provider: './provider.mjs' } }, { 'provider.mjs': ACME });
  installPackage(ws.dir, '@corp/broken-mce', { main: 'index.mjs', mce: { provider: true } }, { 'index.mjs': "throw new Error('boom at import');\n" });
  installPackage(ws.dir, '@corp/escapes', { mce: { provider: '../../../evil.mjs' } }, {});
  installPackage(ws.dir, 'left-pad', {}, { 'index.js': 'module.exports = 1;\n' });
  return ws;
}

type Listed = { name: string; version: string; metrics: string[]; origin: { kind: string; package?: string; version?: string; entry?: string } };

/** mce's own provider packages (installed beside it, so discovered too) are left out of what these tests look at. */
const OWN = new Set(['ragas', 'deepeval', 'opik', 'sdk']);
const theirs = (listed: Listed[]) => listed.filter((p) => !OWN.has(p.name));

describe('provider discovery', () => {
  it('lists an installed provider package with its version and origin, and names the broken ones without stopping', async () => {
    const ws = project();
    const run = await runCli(['provider', 'list', '--json'], ws);
    expect(run.code).toBe(0);
    const listed = theirs(run.json<Listed[]>());
    expect(listed.map((p) => [p.name, p.version, p.origin])).toEqual([
      ['mce', NATIVE_VERSION, { kind: 'built-in' }],
      ['acme', '2.0.0', { kind: 'discovered', package: 'acme-mce-metrics', version: '2.0.0', dir: expect.stringContaining('acme-mce-metrics') }],
    ]);
    expect(listed[1]?.metrics).toEqual(['SpanCount']);
    const warnings = run.stderr.trim().split('\n').sort();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^mce: warning: provider package "@corp\/broken-mce" \(.*broken-mce\): cannot load "@corp\/broken-mce": boom at import — it is left out$/);
    expect(warnings[1]).toMatch(/^mce: warning: provider package "@corp\/escapes" \(.*escapes\) is left out: package.json "mce.provider" \(..\/..\/..\/evil.mjs\) leaves the package$/);
    const human = await runCli(['provider', 'list'], ws);
    expect(human.stdout).toMatch(/\nacme\s+2\.0\.0\s+1\s+installed: acme-mce-metrics@2\.0\.0\s+Acme metrics/);
    expect(human.stdout).toMatch(/\nmce\s+0\.1\.0\s+\d+\s+built-in\s/);
  });

  it('computes a discovered metric with no config entry', async () => {
    const ws = project();
    const run = await runCli(['compute', '--input', example, '--metrics', 'Duration,acme:SpanCount', '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    const sessionLevel = c.results.filter((r) => r.level === 'Session');
    expect(sessionLevel.map((r) => [r.provider, r.name, r.result])).toEqual([['mce', 'Duration', 4200], ['acme', 'SpanCount', 4]]);
    expect((await runCli(['metric', 'list', '--all', '--provider', 'acme', '--json'], ws)).json<{ name: string }[]>().map((m) => m.name)).toEqual(['SpanCount']);
  });

  it('is turned off by provider_discovery: false and by MCE_PROVIDER_DISCOVERY=false', async () => {
    const ws = project();
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'provider_discovery: false\n');
    const off = await runCli(['provider', 'list', '--json'], ws);
    expect([off.json<Listed[]>().map((p) => p.name), off.stderr]).toEqual([['mce'], '']);
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'metrics:\n  Session: [Duration]\n');
    const byEnv = await runCli(['provider', 'list', '--json'], { dir: ws.dir, env: { ...ws.env, MCE_PROVIDER_DISCOVERY: 'off' } });
    expect(byEnv.json<Listed[]>().map((p) => p.name)).toEqual(['mce']);
    const badEnv = await runCli(['provider', 'list'], { dir: ws.dir, env: { ...ws.env, MCE_PROVIDER_DISCOVERY: 'perhaps' } });
    expect([badEnv.code, badEnv.stderr]).toEqual([2, 'mce: environment variable MCE_PROVIDER_DISCOVERY: expected true or false, got "perhaps"\n']);
  });

  it('loads a package both configured and installed once, as configured; a configured broken one is still fatal', async () => {
    const ws = project();
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'providers: [acme-mce-metrics]\n');
    const both = await runCli(['provider', 'list', '--json'], ws);
    expect(both.stderr).not.toContain('acme'); // not loaded a second time (which would clash with itself)
    const listed = theirs(both.json<Listed[]>());
    expect(listed.map((p) => [p.name, p.origin.kind, p.origin.entry])).toEqual([['mce', 'built-in', undefined], ['acme', 'config', 'acme-mce-metrics']]);
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'providers:\n  - "@corp/broken-mce"\n');
    const broken = await runCli(['provider', 'list'], ws);
    expect([broken.code, broken.stderr]).toEqual([2, 'mce: mce_config.yaml:2: providers: cannot load "@corp/broken-mce": boom at import\n']);
  });
});
