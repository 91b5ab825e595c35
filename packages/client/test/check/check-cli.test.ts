/**
 * `mce check` end to end through the CLI: each exit code (0 held, 1 not held or a failed computation, 2 usage),
 * the table, --json, --github, and --junit validated with xmllint against the JUnit XSD of test/data/junit.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const example = (p: string) => join(repo, 'examples', p);
const XSD = fileURLToPath(new URL('../data/junit/JUnit.xsd', import.meta.url));

interface CheckJson {
  checked: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  cases: Array<{ sessionId: string; level: string; metric: string; per: string; status: string; value?: number; count: number; failing: { measures: string; value: number }[]; message: string }>;
}

function workspace(config: string) {
  const ws = tempWorkspace();
  writeFileSync(join(ws.dir, 'mce_config.yaml'), config);
  return ws;
}

const THRESHOLDS = `thresholds:
  Session:
    Cost: { max: 0.005 }
    ToolErrorRate: { max: 10 }
  LLMCall:
    Duration: { max: 3000, per: p95 }
  ToolCall:
    Duration: { max: 1000 }
`;

/** xmllint's verdict on a file against the JUnit XSD (null when xmllint is not installed). */
function xmllint(file: string): { ok: boolean; output: string } | null {
  const run = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
  if (run.error) {
    if (process.env.CI === 'true') throw new Error('xmllint is not installed (apt-get install libxml2-utils); required under CI=true');
    console.warn('\n⚠ SKIPPED: xmllint is not installed (apt-get install libxml2-utils): the JUnit schema check is skipped\n');
    return null;
  }
  return { ok: run.status === 0, output: run.stderr };
}

describe('mce check', () => {
  it('exits 0 when every threshold holds, with the table and summary', async () => {
    const ws = workspace(THRESHOLDS);
    const run = await runCli(['check', '--input', example('sessions/single-agent-tool.json'), '--no-store'], ws);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Session\s+Level\s+Metric\s+Per\s+Threshold\s+Value\s+Status\s+Detail/);
    expect(run.stdout).toMatch(/weather-001\s+LLMCall\s+Duration\s+p95\s+max 3000\s+1800\s+pass/);
    expect(run.stdout).toContain('4 checked: 4 passed, 0 failed, 0 errors, 0 skipped');
  });

  it('exits 1 when a threshold fails, with each value as computed (--json)', async () => {
    const ws = workspace(THRESHOLDS);
    const run = await runCli(['check', '--input', example('sessions'), '--no-store', '--json'], ws);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('mce: check: 12 checked: 7 passed, 5 failed, 0 errors, 0 skipped');
    const out = run.json<CheckJson>();
    expect([out.checked, out.passed, out.failed, out.errors, out.skipped]).toEqual([12, 7, 5, 0, 0]);
    const of = (session: string, level: string, metric: string) => out.cases.find((c) => c.sessionId === session && c.level === level && c.metric === metric)!;
    expect(of('support-7781', 'Session', 'Cost')).toMatchObject({ status: 'fail', value: 0.0092556, count: 1 });
    // p95 (nearest rank) of the four LLM calls 1380, 1300, 1700, 4600 ms is the largest.
    expect(of('support-7781', 'LLMCall', 'Duration')).toMatchObject({ status: 'fail', value: 4600, count: 4, per: 'p95' });
    expect(of('support-7781', 'ToolCall', 'Duration')).toMatchObject({ status: 'fail', value: 1400, count: 2 });
    expect(of('support-7781', 'ToolCall', 'Duration').failing).toHaveLength(1);
    expect(of('weather-001', 'Session', 'Cost')).toMatchObject({ status: 'pass' });
  });

  it('mean over a level compares the mean, not each value', async () => {
    const ws = workspace('thresholds:\n  LLMCall:\n    Duration: { max: 2300, per: mean }\n');
    const out = (await runCli(['check', '--input', example('sessions/handoff-three-agents.json'), '--no-store', '--json'], ws)).json<CheckJson>();
    // 1380, 1300, 1700, 4600 ms: mean 2245 holds where each would not.
    expect(out.cases[0]).toMatchObject({ status: 'pass', value: 2245, count: 4 });
  });

  it('a failed computation is an error (exit 1), never a pass or a 0', async () => {
    const ws = workspace('thresholds:\n  Session:\n    AnswerRelevancy: { min: 0.7 }\n    Duration: { max: 100000 }\n');
    ws.env.MCE_METRIC_CACHE = 'none'; // no judge is configured: AnswerRelevancy fails
    const run = await runCli(['check', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--json'], ws);
    expect(run.code).toBe(1);
    const out = run.json<CheckJson>();
    expect(out.cases[0]).toMatchObject({ metric: 'AnswerRelevancy', status: 'error', count: 0 });
    expect(out.cases[0]!.value).toBeUndefined();
    expect(out.cases[0]!.message).toMatch(/AnswerRelevancy failed on Session weather-001: .*no LLM judge configured/);
    expect(out.cases[1]).toMatchObject({ metric: 'Duration', status: 'pass', value: 4200 });
  });

  it('a level the session lacks is skipped; a stored session without the result is an error', async () => {
    const ws = workspace('metrics:\n  Session: [Duration]\nthresholds:\n  Session:\n    Duration: { max: 100000 }\n    Cost: { max: 1 }\n  TaskCall:\n    Duration: { max: 10 }\n');
    expect((await runCli(['ingest', example('sessions/single-agent-tool.json')], ws)).code).toBe(0);
    expect((await runCli(['compute', 'weather-001', '--json'], ws)).code).toBe(0);
    const run = await runCli(['check', 'weather-001', '--json'], ws);
    expect(run.code).toBe(1);
    const out = run.json<CheckJson>();
    expect(out.cases.map((c) => [c.level, c.metric, c.status])).toEqual([
      ['Session', 'Duration', 'pass'],
      ['Session', 'Cost', 'error'],
      ['TaskCall', 'Duration', 'skipped'],
    ]);
    expect(out.cases[1]!.message).toBe('Cost has no stored result at Session in this session');
    expect(out.cases[2]!.message).toBe('the session has no TaskCall');
    const all = await runCli(['check', '--all', '--json'], ws);
    expect(all.json<CheckJson>().checked).toBe(3);
  });

  it('stored results are held by their newest run: an older run’s value fails nothing', async () => {
    const ws = workspace('metrics:\n  LLMCall: [Duration]\nthresholds:\n  LLMCall:\n    Duration: { max: 2000 }\n');
    const original = readFileSync(example('sessions/single-agent-tool.json'), 'utf8');
    const slow = JSON.parse(original) as { llmCalls: { endTime: number }[] };
    slow.llmCalls[0]!.endTime += 60_000; // a first run over a slower copy of the call
    writeFileSync(join(ws.dir, 'slow.json'), JSON.stringify(slow));
    expect((await runCli(['ingest', join(ws.dir, 'slow.json')], ws)).code).toBe(0);
    expect((await runCli(['compute', 'weather-001', '--run-id', 'run-1'], ws)).code).toBe(0);
    expect((await runCli(['check', 'weather-001'], ws)).code).toBe(1);
    // The call as it is now (ingesting replaces it by id), computed in a second run.
    expect((await runCli(['ingest', example('sessions/single-agent-tool.json')], ws)).code).toBe(0);
    expect((await runCli(['compute', 'weather-001', '--run-id', 'run-2'], ws)).code).toBe(0);
    const run = await runCli(['check', 'weather-001', '--json'], ws);
    expect(run.code).toBe(0);
    expect(run.json<CheckJson>().cases[0]).toMatchObject({ status: 'pass', count: 2, value: 1800 });
  });

  it('--input stores the sessions and results unless --no-store; check then reads them back', async () => {
    const ws = workspace('thresholds:\n  Session:\n    Duration: { max: 100000 }\n');
    expect((await runCli(['check', '--input', example('sessions/single-agent-tool.json')], ws)).code).toBe(0);
    const stored = await runCli(['check', 'weather-001', '--json'], ws);
    expect(stored.json<CheckJson>().cases[0]).toMatchObject({ status: 'pass', value: 4200 });
  });

  it('exits 2 on usage errors, naming the file, line and field', async () => {
    const none = await runCli(['check', '--input', example('sessions'), '--no-store'], workspace('metrics:\n  Session: [Duration]\n'));
    expect([none.code, none.stderr]).toEqual([2, 'mce: check: no thresholds in mce_config.yaml: add a thresholds: section\n']);
    const noBound = await runCli(['check', '--input', example('sessions'), '--no-store'], workspace('thresholds:\n  Session:\n    Cost: {}\n'));
    expect([noBound.code, noBound.stderr]).toEqual([2, 'mce: mce_config.yaml: invalid configuration\n  mce_config.yaml:3: thresholds.Session.Cost: give min, max or both\n']);
    const inverted = await runCli(['check', '--all'], workspace('thresholds:\n  Session:\n    Cost: { min: 2, max: 1 }\n'));
    expect(inverted.stderr).toContain('mce_config.yaml:3: thresholds.Session.Cost: min 2 is above max 1: nothing could pass');
    const per = await runCli(['check', '--all'], workspace('thresholds:\n  LLMCall:\n    Duration:\n      max: 1\n      per: p99\n'));
    expect([per.code, per.stderr]).toEqual([2, 'mce: mce_config.yaml: invalid configuration\n  mce_config.yaml:5: thresholds.LLMCall.Duration.per: must be one of each, mean, p95\n']);
    const unknown = await runCli(['check', '--input', example('sessions'), '--no-store'], workspace('thresholds:\n  Session:\n    Duration: { max: 1 }\n    Costt: { max: 1 }\n'));
    expect([unknown.code, unknown.stderr]).toEqual([2, 'mce: mce_config.yaml: invalid configuration\n  mce_config.yaml:4: thresholds.Session.Costt: unknown metric "Costt" (mce metric list shows them)\n']);
    const level = await runCli(['check', '--input', example('sessions'), '--no-store'], workspace('thresholds:\n  ToolCall:\n    Cost: { max: 1 }\n'));
    expect(level.stderr).toContain('mce_config.yaml:3: thresholds.ToolCall.Cost: Cost is not computed at ToolCall (it is at Session, MASCall, AgentCall, LLMCall)');
    const ws = workspace(THRESHOLDS);
    expect((await runCli(['check'], ws)).code).toBe(2);
    expect((await runCli(['check', 'a', '--all'], ws)).code).toBe(2);
    expect((await runCli(['check', '--all', '--no-store'], ws)).stderr).toBe('mce: check: --no-store applies to --input only\n');
    expect((await runCli(['check', '--input', example('sessions'), '--json', '--github'], ws)).code).toBe(2);
    expect((await runCli(['ingest', example('sessions/single-agent-tool.json')], ws)).code).toBe(0);
    const missing = await runCli(['check', 'no-such-session'], ws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-session');
  });

  it('a plugin metric is held as provider:name; its bare name is refused with that hint', async () => {
    const plugin = `export default { name: 'acme', metrics: () => [{
      metadata: { name: 'SpanCount', provider: 'acme', levels: ['Session'], nature: 'deterministic', unit: 'count',
        valueRange: 'non-negative integer', description: 'Calls', requirements: [], dependsOn: [] },
      compute: (s) => ({ value: s.llmCalls.length + s.toolCalls.length, reasoning: 'counted' }) }] };\n`;
    const ws = workspace('providers: [./acme.mjs]\nthresholds:\n  Session:\n    acme:SpanCount: { max: 2 }\n');
    writeFileSync(join(ws.dir, 'acme.mjs'), plugin);
    const out = await runCli(['check', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--json'], ws);
    expect(out.code).toBe(1); // weather-001: 2 LLM calls and 1 tool call
    expect(out.json<CheckJson>().cases[0]).toMatchObject({ metric: 'acme:SpanCount', status: 'fail', value: 3 });
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'providers: [./acme.mjs]\nthresholds:\n  Session:\n    SpanCount: { max: 2 }\n');
    const bare = await runCli(['check', '--input', example('sessions/single-agent-tool.json'), '--no-store'], ws);
    expect(bare.stderr).toContain('mce_config.yaml:4: thresholds.Session.SpanCount: unknown metric "SpanCount" (write a plugin\'s metric as acme:SpanCount)');
  });

  it('--input is checked a chunk at a time: every session of a three-chunk input once, a session in two far parts as stored', async () => {
    const ws = workspace('thresholds:\n  Session:\n    LLMCallCount: { max: 3 }\n');
    const session = JSON.parse(readFileSync(example('sessions/single-agent-tool.json'), 'utf8')) as { id: string; llmCalls: { id: string }[]; toolCalls: { id: string }[] };
    const many = join(ws.dir, 'many.json');
    writeFileSync(many, JSON.stringify({ sessions: Array.from({ length: 250 }, (_, i) => ({ ...session, id: `many-${i}` })) }));
    const whole = await runCli(['check', '--input', many, '--no-store', '--json'], ws);
    expect(whole.code).toBe(0);
    const verdicts = whole.json<CheckJson>();
    expect([verdicts.checked, verdicts.passed, new Set(verdicts.cases.map((c) => c.sessionId)).size]).toEqual([250, 250, 250]);
    // One session in two parts (other calls of the same agent), 120 sessions apart: two chunks.
    const first = join(ws.dir, 'a.json');
    const filler = join(ws.dir, 'b.json');
    const second = join(ws.dir, 'c.json');
    writeFileSync(first, JSON.stringify({ ...session, id: 'split' }));
    writeFileSync(filler, JSON.stringify({ sessions: Array.from({ length: 120 }, (_, i) => ({ ...session, id: `fill-${i}` })) }));
    const rename = <T extends { id: string }>(calls: T[]) => calls.map((c) => ({ ...c, id: `${c.id}-b` }));
    writeFileSync(second, JSON.stringify({ ...session, id: 'split', llmCalls: rename(session.llmCalls), toolCalls: rename(session.toolCalls) }));
    const split = (run: Awaited<ReturnType<typeof runCli>>) => run.json<CheckJson>().cases.filter((c) => c.sessionId === 'split').map((c) => [c.status, c.value]);
    // Stored: the second part is merged into the first, and the merged session (4 LLM calls) replaces the first verdict.
    const stored = await runCli(['check', '--input', first, filler, second, '--json'], ws);
    expect(stored.code).toBe(1);
    expect(split(stored)).toEqual([['fail', 4]]);
    expect(stored.json<CheckJson>().checked).toBe(121);
    // --no-store keeps nothing to merge with: each part is held on its own.
    const unstored = await runCli(['check', '--input', first, filler, second, '--no-store', '--json'], workspace('thresholds:\n  Session:\n    LLMCallCount: { max: 3 }\n'));
    expect(unstored.code).toBe(0);
    expect(split(unstored)).toEqual([['pass', 2], ['pass', 2]]);
  });

  it('--github prints one annotation per threshold not held, at its line in the config', async () => {
    const ws = workspace(THRESHOLDS);
    const run = await runCli(['check', '--input', example('sessions/handoff-three-agents.json'), '--no-store', '--github'], ws);
    expect(run.code).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toHaveLength(4);
    expect(annotations[0]).toBe('::error file=mce_config.yaml,line=3,title=mce check failed%3A Session Cost each max 0.005::support-7781: 1 of 1 past max 0.005 (worst 0.0092556)');
    expect(annotations[2]).toBe('::error file=mce_config.yaml,line=6,title=mce check failed%3A LLMCall Duration p95 max 3000::support-7781: p95 of 4 results is 4600, past max 3000');
  });

  it('--junit writes JUnit XML that validates against the Ant/JUnit schema, with failures, errors and skips', async () => {
    // The thresholds above plus a judged metric that fails (no judge is configured) and a level with no element.
    const ws = workspace(`${THRESHOLDS.replace('    ToolErrorRate: { max: 10 }\n', '    ToolErrorRate: { max: 10 }\n    AnswerRelevancy: { min: 0.5 }\n')}  TaskCall:\n    Duration: { max: 1 }\n`);
    ws.env.MCE_METRIC_CACHE = 'none';
    const file = join(ws.dir, 'check.xml');
    const run = await runCli(['check', '--input', example('sessions'), '--no-store', '--junit', file], ws);
    expect(run.code).toBe(1);
    const xml = readFileSync(file, 'utf8');
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(xml.match(/<testcase /g)).toHaveLength(18);
    expect(xml).toContain('<testsuite name="support-7781" package="mce.check" id="0"');
    expect(xml).toMatch(/tests="6" failures="4" errors="1" skipped="1"/);
    expect(xml).toContain('<failure message="p95 of 4 results is 4600, past max 3000" type="threshold">');
    expect(xml).toMatch(/<error message="AnswerRelevancy failed on Session support-7781: [^"]*no LLM judge configured[^"]*" type="computation">/);
    const verdict = xmllint(file);
    if (verdict) expect(verdict, verdict.output).toMatchObject({ ok: true });
    // The validator does reject what the schema forbids: a suite without its required hostname.
    const broken = join(ws.dir, 'broken.xml');
    writeFileSync(broken, xml.replace(/ hostname="[^"]*"/, ''));
    const rejected = xmllint(broken);
    if (rejected) expect(rejected.ok).toBe(false);
  });
});
