import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { MetricEngine, ONTOLOGY_LEVELS, SessionSchema, type OntologyLevel, type Session, type SessionComputation } from '@mce/core';
import { nativeProvider } from '@mce/provider-native';
import { openStore } from '../../src/index.js';
import { runCli, tempWorkspace } from './run-cli.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const example = (p: string) => join(repo, 'examples', p);

const RESULT_KEYS = [
  'id', 'name', 'provider', 'level', 'measures', 'result', 'unit', 'reasoning', 'evaluationModel',
  'evaluationPromptTokenCount', 'evaluationCompletionTokenCount', 'evaluationTotalTokenCount', 'evaluationCost', 'timestamp',
];

function value(c: SessionComputation, name: string, level = 'Session') {
  return c.results.find((r) => r.name === name && r.level === level)?.result;
}

describe('mce metric / provider', () => {
  it('lists the default set, the implemented metrics and the whole catalog', async () => {
    const ws = tempWorkspace();
    const list = (await runCli(['metric', 'list', '--json'], ws)).json<{ name: string; nature: string }[]>();
    expect(list.map((m) => m.name)).toContain('CyclesCount');
    expect(list.every((m) => m.nature !== 'llm-judged')).toBe(true);
    const all = (await runCli(['metric', 'list', '--all', '--json'], ws)).json<{ name: string }[]>();
    expect(all.map((m) => m.name)).toContain('AnswerRelevancy');
    const abstract = (await runCli(['metric', 'list', '--abstract', '--json'], ws)).json<{ name: string; implemented: boolean }[]>();
    expect(abstract.find((m) => m.name === 'Duration')?.implemented).toBe(true);
    expect(abstract.length).toBeGreaterThanOrEqual(all.length);
    const human = await runCli(['metric', 'list', '--abstract'], ws);
    expect(human.stdout).toMatch(/^Name\s+Provider\s+Nature\s+Levels\s+Unit\s+Implemented/);
    const native = (await runCli(['metric', 'list', '--all', '--provider', 'native', '--json'], ws)).json<{ provider: string }[]>();
    expect(new Set(native.map((m) => m.provider))).toEqual(new Set(['mce']));
    const typo = await runCli(['metric', 'list', '--provider', 'mcee'], ws);
    expect([typo.code, typo.stdout, typo.stderr]).toEqual([2, '', 'mce: --provider: unknown provider "mcee" (did you mean "mce"?) (known: mce, deepeval, opik, ragas, sdk)\n']);
  });

  it('shows one metric and names an unknown one with exit code 2', async () => {
    const ws = tempWorkspace();
    const shown = (await runCli(['metric', 'show', 'WorkflowEfficiency', '--json'], ws)).json<{ levels: string[]; unit: string; options: string[] }>();
    expect([shown.levels, shown.options]).toEqual([['Session'], []]);
    const judged = (await runCli(['metric', 'show', 'AnswerRelevancy', '--json'], ws)).json<{ options: string[] }>();
    expect(judged.options).toEqual(['model']);
    expect((await runCli(['metric', 'show', 'MCPUse'], ws)).stdout).toContain('  options:      threshold, model, include_reason,');
    const bad = await runCli(['metric', 'show', 'NoSuchMetric'], ws);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown metric "NoSuchMetric"');
    const typo = await runCli(['metric', 'show', 'Durration'], ws);
    expect([typo.code, typo.stderr]).toEqual([2, 'mce: unknown metric "Durration" (did you mean "Duration"?) (see: mce metric list --abstract)\n']);
  });

  it('metric list checks the configuration as a run does: a misspelt metric or option is an error at its line, not a missing row', async () => {
    const ws = tempWorkspace();
    const config = join(ws.dir, 'bad.yaml');
    writeFileSync(config, 'metrics:\n  Session: [Durration]\nmetric_options:\n  MCPUse:\n    treshold: 0.5\n');
    const run = await runCli(['--config', config, 'metric', 'list'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n').slice(0, 3)).toEqual([
      `mce: ${config}: invalid configuration`,
      `  ${config}:2: metrics.Session: Unknown metric "Durration" selected at Session (did you mean "Duration"?)`,
      expect.stringMatching(new RegExp(`^  ${config.replace(/[.]/g, '\\.')}:5: metric_options\\.MCPUse\\.treshold: mce:MCPUse has no option "treshold" \\(did you mean "threshold"\\?\\)`)),
    ]);
    expect(run.stdout).toBe('');
  });

  it('lists the native provider', async () => {
    const providers = (await runCli(['provider', 'list', '--json'], tempWorkspace())).json<{ name: string; metrics: string[] }[]>();
    // mce's own library-backed provider packages, installed beside it, are discovered too.
    expect(providers.map((p) => p.name).filter((n) => !['ragas', 'deepeval', 'opik', 'sdk'].includes(n))).toEqual(['mce']);
    expect(providers[0]?.metrics).toContain('Cost');
  });
});

describe('mce compute --input', () => {
  it('prints the stable JSON shape with exact values for a hand-made session', async () => {
    const ws = tempWorkspace();
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    const out = run.json<{ sessions: SessionComputation[] }>();
    expect(Object.keys(out)).toEqual(['sessions']);
    const [c] = out.sessions as [SessionComputation];
    expect(c.sessionId).toBe('weather-001');
    expect(Object.keys(c)).toEqual(['sessionId', 'results', 'failed', 'skipped']);
    for (const r of c.results) expect(Object.keys(r).filter((k) => k !== 'details')).toEqual(RESULT_KEYS);
    expect(value(c, 'Duration')).toBe(4200);
    expect(value(c, 'PromptTokens')).toBe(662);
    expect(value(c, 'CompletionTokens')).toBe(33);
    expect(value(c, 'TotalTokens')).toBe(695);
    // gpt-4o-mini: 662 × 1.5e-7 + 33 × 6e-7
    expect(value(c, 'Cost')).toBeCloseTo(662 * 1.5e-7 + 33 * 6e-7, 12);
    expect(value(c, 'LLMCallCount')).toBe(2);
    expect(value(c, 'ToolCallCount')).toBe(1);
    expect(value(c, 'MeanLLMCallDuration')).toBe(1640);
    expect(value(c, 'MeanToolCallDuration')).toBe(600);
    expect(value(c, 'Duration', 'ToolCall')).toBe(600);
    expect(c.skipped).toEqual([
      { name: 'WorkflowEfficiency', level: 'Session', measures: 'weather-001', reason: expect.stringContaining('no transition') },
    ]);
    expect(c.failed).toEqual([]);
    const duration = c.results.find((r) => r.name === 'Duration' && r.level === 'Session');
    expect(duration).toMatchObject({ provider: 'mce', unit: 'ms', evaluationModel: null, evaluationCost: 0, evaluationTotalTokenCount: 0 });
  });

  it('computes only the metrics asked for', async () => {
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--metrics', 'Duration,CyclesCount', '--json', '--no-store'], tempWorkspace());
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    expect(new Set(c.results.map((r) => r.name))).toEqual(new Set(['Duration', 'CyclesCount']));
    expect(run.stderr).toBe(''); // warnings only, by default
    const verbose = await runCli(['-v', 'compute', '--input', example('sessions/single-agent-tool.json'), '--metrics', 'Duration,CyclesCount', '--json', '--no-store'], tempWorkspace());
    const logged = verbose.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.find((l) => l.msg === 'computed')).toMatchObject({ level: 30, sessions: 1, results: c.results.length, failed: 0, stored: false });
  });

  it('warns about fields a session file does not define, naming file, line, column and path, and computes the session read', async () => {
    const ws = tempWorkspace();
    const doc = JSON.parse(readFileSync(example('sessions/single-agent-tool.json'), 'utf8')) as Record<string, unknown>;
    const file = join(ws.dir, 'typo.jsonl');
    const { llmCalls, ...rest } = doc;
    const second = JSON.stringify({ ...rest, llmcalls: llmCalls });
    writeFileSync(file, `${JSON.stringify({ ...doc, id: 'first' })}\n${second}\n`);
    const run = await runCli(['compute', '--input', file, '--metrics', 'LLMCallCount', '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    const counts = run.json<{ sessions: SessionComputation[] }>().sessions.map((c) => [c.sessionId, c.results.find((r) => r.level === 'Session')?.result]);
    expect(counts).toEqual([['first', 2], ['weather-001', 0]]);
    const logged = run.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map(({ time: _time, ...l }) => l)).toEqual([{
      level: 40,
      code: 'unknown-field',
      message: 'llmcalls: unknown field, ignored (did you mean "llmCalls"?)',
      file,
      line: 2,
      column: second.indexOf('"llmcalls"') + 1, // where its name is on the line
      path: 'llmcalls',
      count: 1,
      msg: 'ingest warning',
    }]);
  });

  it('names the line and column of bad and unknown fields of a pretty-printed session file', async () => {
    const ws = tempWorkspace();
    const text = readFileSync(example('sessions/mcp-tools.json'), 'utf8');
    // The session's, its MAS call's and its agent call's `startTime` (lines 4, 18 and 31) misspelt.
    const bad = join(ws.dir, 'bad.json');
    writeFileSync(bad, text.replace(/"startTime"/g, (m, at: number) => (at < text.indexOf('"taskCalls"') ? '"startTme"' : m)));
    const refused = await runCli(['compute', '--input', bad, '--json', '--no-store'], ws);
    const missing = 'Invalid input: expected number, received undefined';
    const misspelt = 'unknown field, ignored (did you mean "startTime"?)';
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([2, '', `mce: ${bad}: not a valid session file (` +
      `startTime (line 1, column 1): ${missing}; masCalls.0.startTime (line 13, column 5): ${missing}; agentCalls.0.startTime (line 26, column 5): ${missing}; ` +
      `startTme (line 4, column 3): ${misspelt}; masCalls[0].startTme (line 18, column 7): ${misspelt}; agentCalls[0].startTme (line 31, column 7): ${misspelt})\n`]);
    // A field of no meaning is a warning: its line and column are fields of the logged record.
    const typo = join(ws.dir, 'typo.json');
    writeFileSync(typo, readFileSync(example('sessions/single-agent-tool.json'), 'utf8').replaceAll('"requestModel"', '"requestModle"'));
    const run = await runCli(['compute', '--input', typo, '--metrics', 'LLMCallCount', '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    const logged = run.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map(({ time: _time, ...l }) => l)).toEqual([{
      level: 40,
      code: 'unknown-field',
      message: 'llmCalls[0].requestModle: unknown field, ignored (did you mean "requestModel"?); 2 in all at llmCalls[*].requestModle',
      file: typo,
      path: 'llmCalls[0].requestModle',
      count: 2,
      line: 56,
      column: 7,
      msg: 'ingest warning',
    }]);
  });

  it('prints a table per session for people', async () => {
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--no-store'], tempWorkspace());
    expect(run.stdout).toMatch(/^Session weather-001\nLevel\s+Measures\s+Metric\s+Value\s+Unit\s+Reasoning/);
    expect(run.stdout).toMatch(/Session\s+\(session\)\s+Duration\s+4200\s+ms/);
    expect(run.stdout).toContain('Skipped:\n  WorkflowEfficiency [Session (session)]');
  });

  it('names the file of bad input and exits 2', async () => {
    const ws = tempWorkspace();
    const missing = await runCli(['compute', '--input', join(ws.dir, 'nope.json')], ws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json.*no such file or directory/);
    const junk = join(ws.dir, 'junk.json');
    writeFileSync(junk, '{"hello": "world"}');
    const unknown = await runCli(['compute', '--input', junk, '--no-store'], ws);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('junk.json');
    expect(unknown.stderr).toContain('not a known trace format');
  });

  it('names file, line and field of a bad mce_config.yaml and exits 2', async () => {
    const ws = tempWorkspace();
    const config = join(ws.dir, 'mce_config.yaml');
    writeFileSync(config, 'metrics:\n  Session:\n    - Duration\n  LLMCal: [Cost]\n');
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--worker-config', config], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${config}:4: metrics.LLMCal: unknown field "LLMCal"`);
  });

  it('rejects an unknown metric and a metric at a level it does not support, naming the file and line', async () => {
    const ws = tempWorkspace();
    const config = join(ws.dir, 'mce_config.yaml');
    writeFileSync(config, 'metrics:\n  Session:\n    - Duration\n    - name: NoSuchMetric\n      threshold: 0.5\n  ToolCall: [CyclesCount]\n');
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--worker-config', config], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `mce: ${config}: invalid configuration\n` +
        `  ${config}:4: metrics.Session: Unknown metric "NoSuchMetric" selected at Session\n` +
        `  ${config}:6: metrics.ToolCall: Metric "mce:CyclesCount" does not support level ToolCall (it supports Session, AgentCall)\n`,
    );
  });

  it('computes a session split across trace files, and one written whole in two session files, once, over all its calls', async () => {
    const ws = tempWorkspace();
    const lines = readFileSync(example('traces/multi-agent.jsonl'), 'utf8').trimEnd().split('\n');
    const [part1, part2] = [join(ws.dir, 'part1.jsonl'), join(ws.dir, 'part2.jsonl')];
    writeFileSync(part1, lines.slice(0, 7).join('\n') + '\n'); // the span naming the session is in this half
    writeFileSync(part2, lines.slice(7).join('\n') + '\n');
    const shape = (c: SessionComputation) => c.results.map((r) => [r.name, r.level, r.measures, r.result]);
    const whole = (await runCli(['compute', '--input', example('traces/multi-agent.jsonl'), '--no-store', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    const split = await runCli(['compute', '--input', part1, part2, '--no-store', '--json'], ws);
    expect(split.stderr).toBe(''); // no unknown-parent warning: the parts are one session
    const parts = split.json<{ sessions: SessionComputation[] }>();
    expect(parts.sessions.map((c) => c.sessionId)).toEqual(['trip-2026-001']);
    expect(shape(parts.sessions[0]!)).toEqual(shape(whole.sessions[0]!));
    expect(parts.sessions[0]!.results.filter((r) => r.name === 'LLMCallCount' && r.level === 'AgentCall').map((r) => r.result)).toEqual([1, 3, 2]);
    // Session files: the same session written in two files (a call in each) is merged by id, as the store does.
    const session = JSON.parse(readFileSync(example('sessions/single-agent-tool.json'), 'utf8')) as Session;
    const [a, b] = [join(ws.dir, 'a.json'), join(ws.dir, 'b.json')];
    writeFileSync(a, JSON.stringify({ ...session, toolCalls: [] }));
    writeFileSync(b, JSON.stringify({ ...session, llmCalls: [] }));
    const merged = (await runCli(['compute', '--input', a, b, '--no-store', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    const alone = (await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(merged.sessions).toHaveLength(1);
    expect(value(merged.sessions[0]!, 'ToolCallCount')).toBe(value(alone.sessions[0]!, 'ToolCallCount'));
    expect(value(merged.sessions[0]!, 'LLMCallCount')).toBe(value(alone.sessions[0]!, 'LLMCallCount'));
    expect(value(alone.sessions[0]!, 'ToolCallCount')).toBeGreaterThan(0);
  });

  it('--no-store opens no store: no file is created, and an unreachable database is never contacted', async () => {
    const ws = tempWorkspace();
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--json'], ws);
    expect(run.code).toBe(0);
    expect(existsSync(join(ws.dir, 'mce.db'))).toBe(false);
    const away = await runCli(['--store-url', 'postgres://nobody@127.0.0.1:1/none', 'compute', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--json'], ws);
    expect([away.code, away.stderr]).toEqual([0, '']);
    expect(value(away.json<{ sessions: SessionComputation[] }>().sessions[0]!, 'Duration')).toBe(4200);
  });

  it('serve refuses a body limit that rounds to nothing, a bad port or a bad computation limit, before opening anything', async () => {
    const ws = tempWorkspace();
    const tiny = await runCli(['serve', '--max-body-mb', '1e-9'], ws);
    expect([tiny.code, tiny.stderr]).toEqual([2, 'mce: --max-body-mb must be a positive number of at least 1 byte (got "1e-9")\n']);
    expect((await runCli(['serve', '--max-body-mb', '0'], ws)).code).toBe(2);
    expect((await runCli(['serve', '--port', '70000'], ws)).stderr).toBe('mce: --port must be 0–65535 (got "70000")\n');
    expect((await runCli(['serve', '--max-computations', '0'], ws)).stderr).toBe('mce: --max-computations must be a positive integer (got "0")\n');
    expect(existsSync(join(ws.dir, 'mce.db'))).toBe(false);
  });

  it('a store that cannot be opened is named (its password hidden): a bad file is bad input, a server out of reach a runtime failure', async () => {
    const ws = tempWorkspace();
    const junk = join(ws.dir, 'junk.db');
    writeFileSync(junk, 'not a database at all, but long enough to have a header page of sorts '.repeat(20));
    const sqlite = await runCli(['--store-url', `sqlite:${junk}`, 'ingest', example('sessions/single-agent-tool.json')], ws);
    expect([sqlite.code, sqlite.stderr]).toEqual([2, `mce: cannot open the store sqlite:${junk}: file is not a database\n`]);
    const pg = await runCli(['--store-url', 'postgres://bob:hunter2@127.0.0.1:1/x', 'sessions', 'list'], ws);
    expect(pg.code).toBe(1);
    expect(pg.stderr).toMatch(/^mce: cannot open the store postgres:\/\/bob:\*\*\*@127\.0\.0\.1:1\/x: .*ECONNREFUSED/);
    expect(pg.stderr).not.toContain('hunter2');
    // Not even in a URL that does not parse, or in a password query parameter.
    const badPort = await runCli(['--store-url', 'postgres://admin:TopS3cret@127.0.0.1:99999/db', 'sessions', 'list'], ws);
    expect([badPort.code, badPort.stderr.includes('TopS3cret'), badPort.stderr.includes('admin:***@')]).toEqual([2, false, true]);
    const param = await runCli(['--store-url', 'postgres://127.0.0.1:1/db?user=admin&password=TopS3cret', 'sessions', 'list'], ws);
    expect([param.stderr.includes('TopS3cret'), param.stderr.includes('password=***')]).toEqual([false, true]);
  });

  it('a file holding part of a stored session: the results measure the stored session merged with it', async () => {
    const ws = tempWorkspace();
    const session = JSON.parse(readFileSync(example('sessions/single-agent-tool.json'), 'utf8')) as Session;
    expect(session.llmCalls.length).toBe(2);
    const [whole, part] = [join(ws.dir, 'whole.json'), join(ws.dir, 'part.json')];
    writeFileSync(whole, JSON.stringify(session));
    writeFileSync(part, JSON.stringify({ ...session, llmCalls: session.llmCalls.slice(0, 1), toolCalls: [] }));
    expect((await runCli(['ingest', whole], ws)).code).toBe(0);
    const run = await runCli(['compute', '--input', part, '--metrics', 'LLMCallCount', '--no-recursive', '--json'], ws);
    expect(value(run.json<{ sessions: SessionComputation[] }>().sessions[0]!, 'LLMCallCount')).toBe(2);
    const stored = await runCli(['kg', 'metric', 'get', 'weather-001', '--metrics', 'LLMCallCount', '--json'], ws);
    expect(stored.json<{ sessions: SessionComputation[] }>().sessions[0]!.results.map((r) => r.result)).toEqual([2]);
  });

  it('rejects an option a metric does not read and options of an unknown metric, naming the file and line', async () => {
    const ws = tempWorkspace();
    const config = join(ws.dir, 'mce_config.yaml');
    writeFileSync(
      config,
      'metrics:\n  Session:\n    - Duration\n    - name: MCPUse\n      treshold: 0.5\nmetric_options:\n  Cost:\n    model: gpt-4o\n  Durration:\n    x: 1\n',
    );
    const run = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--worker-config', config], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `mce: ${config}: invalid configuration\n` +
        `  ${config}:8: metric_options.Cost.model: mce:Cost has no option "model"; it takes no options\n` +
        `  ${config}:9: metric_options.Durration: options for unknown metric "Durration" (did you mean "Duration"?)\n` +
        `  ${config}:5: metrics.Session.1.treshold: mce:MCPUse has no option "treshold" (did you mean "threshold"?); its options: ` +
        'threshold, model, include_reason, strict_mode, async_mode, verbose_mode, flaky, system_one_model, eval_mode, system_one_weights\n',
    );
    // A key named __proto__ is a metric name like any other (it was taken as the options object's prototype, unchecked).
    writeFileSync(config, 'metric_options:\n  __proto__:\n    polluted: 1\n');
    const proto = await runCli(['compute', '--input', example('sessions/single-agent-tool.json'), '--no-store', '--worker-config', config], ws);
    expect([proto.code, proto.stderr]).toEqual([2, `mce: ${config}: invalid configuration\n  ${config}:2: metric_options.__proto__: options for unknown metric "__proto__"\n`]);
  });

  it('usage errors exit 2', async () => {
    const run = await runCli(['compute'], tempWorkspace());
    expect(run.code).toBe(2);
    // Commander's own usage errors too (it would exit 1); help is no error.
    const unknown = await runCli(['compute', '--bogus'], tempWorkspace());
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([2, "error: unknown option '--bogus'"]);
    expect((await runCli(['--help'], tempWorkspace())).code).toBe(0);
    expect(run.stderr).toContain('give session ids, --all, or --input');
    const time = await runCli(['sessions', 'list', '--from', 'yesterday'], tempWorkspace());
    expect([time.code, time.stderr]).toEqual([2, 'mce: --from: not a time: yesterday (ISO 8601, e.g. 2026-11-30T08:00:00Z, or epoch milliseconds)\n']);
    const url = await runCli(['--store-url', 'foo://bar', 'sessions', 'list'], tempWorkspace());
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('--store-url: unsupported store URL scheme "foo:"');
    const ws = tempWorkspace();
    const mode = await runCli(['sessions', 'list'], { ...ws, env: { ...ws.env, MCE_EVAL_MODE: 'bogus' } });
    expect([mode.code, mode.stderr]).toEqual([2, 'mce: environment variable MCE_EVAL_MODE: "bogus" is not one of llm, hybrid, system_one\n']);
    const store = await runCli(['sessions', 'list'], { ...ws, env: { ...ws.env, MCE_STORE_URL: 'mysql://x' } });
    expect([store.code, store.stderr]).toEqual([2, expect.stringContaining('environment variable MCE_STORE_URL: unsupported store URL scheme "mysql:"')]);
    const envDir = await runCli(['--env-file', ws.dir, 'sessions', 'list'], ws);
    expect([envDir.code, envDir.stderr]).toEqual([2, expect.stringContaining(`--env-file ${ws.dir}: EISDIR`)]);
    // An empty MCE_CONFIG is "not set": the working directory's mce_config.yaml is read.
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'metrics:\n  Session: [Duration]\n');
    const listed = await runCli(['metric', 'list', '--json'], { ...ws, env: { ...ws.env, MCE_CONFIG: '' } });
    expect(listed.json<{ name: string }[]>().map((m) => m.name)).toEqual(['Duration']);
  });
});

describe('mce ingest / sessions / compute --all / kg metric get', () => {
  it('stores sessions and results, and reads them back in the same shape', async () => {
    const ws = tempWorkspace();
    const ingest = await runCli(['ingest', example('sessions'), example('traces'), '--json'], ws);
    expect(ingest.code).toBe(0);
    const ingested = ingest.json<{ sessionIds: string[] }>().sessionIds;
    expect(ingested).toContain('weather-001');
    const listed = (await runCli(['sessions', 'list', '--json'], ws)).json<{ id: string; counts: { llmCalls: number } }[]>();
    expect(new Set(listed.map((s) => s.id))).toEqual(new Set(ingested));
    expect(listed.find((s) => s.id === 'weather-001')?.counts.llmCalls).toBe(2);

    const computed = (await runCli(['compute', '--all', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(computed.sessions.map((s) => s.sessionId).sort()).toEqual([...ingested].sort());
    const weather = computed.sessions.find((s) => s.sessionId === 'weather-001') as SessionComputation;

    const got = (await runCli(['kg', 'metric', 'get', 'weather-001', '--recursive', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    const stored = got.sessions[0] as SessionComputation;
    expect(stored.results.map((r) => r.id).sort()).toEqual(weather.results.map((r) => r.id).sort());
    const byId = new Map(weather.results.map((r) => [r.id, r]));
    for (const r of stored.results) expect(r).toEqual(byId.get(r.id));

    const own = (await runCli(['kg', 'metric', 'get', 'weather-001', '--metrics', 'Duration,Cost', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(own.sessions[0]?.results.map((r) => [r.name, r.level]).sort()).toEqual([['Cost', 'Session'], ['Duration', 'Session']]);

    // Computing a stored session by id with a fixed run id overwrites instead of duplicating.
    await runCli(['compute', 'weather-001', '--run-id', 'r1', '--json'], ws);
    await runCli(['compute', 'weather-001', '--run-id', 'r1', '--json'], ws);
    const after = (await runCli(['kg', 'metric', 'get', 'weather-001', '--recursive', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(after.sessions[0]?.results.length).toBe(2 * weather.results.length);
  });

  it('ingests a session split across trace files as one session, its calls attributed across the files', async () => {
    const ws = tempWorkspace();
    const lines = readFileSync(example('traces/multi-agent.jsonl'), 'utf8').trimEnd().split('\n');
    const [part1, part2] = [join(ws.dir, 'part1.jsonl'), join(ws.dir, 'part2.jsonl')];
    writeFileSync(part1, lines.slice(0, 7).join('\n') + '\n');
    writeFileSync(part2, lines.slice(7).join('\n') + '\n');
    const ingest = await runCli(['ingest', part1, part2, '--json'], ws);
    expect(ingest.json<{ sessionIds: string[] }>().sessionIds).toEqual(['trip-2026-001']);
    const fromStore = (await runCli(['compute', 'trip-2026-001', '--no-store', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    const whole = (await runCli(['compute', '--input', example('traces/multi-agent.jsonl'), '--no-store', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    const shape = (c: SessionComputation) => c.results.map((r) => [r.name, r.level, r.measures, r.result]).sort();
    expect(shape(fromStore.sessions[0]!)).toEqual(shape(whole.sessions[0]!));
    // A span naming a parent the file does not hold: the warning is printed where the span begins (the document is on
    // one line: column 44, inside `"spans":[`), and the summary counts it.
    const orphan = join(ws.dir, 'orphan.json');
    const span = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', parentSpanId: 'ffffffffffffffff', name: 'chat', startTimeUnixNano: '1000000000', endTimeUnixNano: '2000000000', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }] };
    writeFileSync(orphan, JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }));
    const alone = await runCli(['ingest', orphan], tempWorkspace());
    expect(alone.stderr.trimEnd().split('\n')).toEqual([
      `${orphan}:1:44: warning: 1 span(s) of session 0af7651916cd43dd8448eb211c80319c name a parent span that is not among its spans ` +
        '(span → missing parent: b7ad6b7169203331 → ffffffffffffffff): they are roots here, linked through that parent only once the store holds it as a call ' +
        '(another part of the session) [unknown-parent]',
      'ingested 1 session(s), 2 call(s) from 1 file(s), 1 warning(s) (above)', // the LLM call and its trace's implicit MAS call
    ]);
  });

  it('prints each ingest warning for people as file:line[:column], and as a JSON log line with --json', async () => {
    const ws = tempWorkspace();
    const T = '0af7651916cd43dd8448eb211c80319c';
    const chat = (spanId: string, parentSpanId?: string) => ({
      traceId: T, spanId, ...(parentSpanId ? { parentSpanId } : {}), name: 'chat', startTimeUnixNano: '1000000000', endTimeUnixNano: '2000000000',
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, { key: 'session.id', value: { stringValue: 's' } }],
    });
    const request = (...spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    // JSON Lines: a span written twice (the copy on line 3), a line cut off mid-write (line 4).
    const lines = join(ws.dir, 'spans.jsonl');
    writeFileSync(lines, `${JSON.stringify(request(chat('b000000000000001')))}\n${JSON.stringify(request(chat('b000000000000002')))}\n${JSON.stringify(request(chat('b000000000000002')))}\n{"resourceSpans": [\n`);
    // One document, pretty-printed: a span whose parent is not in the file, its object opening on line 7, column 13.
    const doc = join(ws.dir, 'orphan.json');
    const T2 = '1af7651916cd43dd8448eb211c80319c';
    writeFileSync(doc, JSON.stringify(request({ ...chat('c000000000000001', 'ffffffffffffffff'), traceId: T2, attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }] }), null, 2));
    expect(readFileSync(doc, 'utf8').split('\n')[6]).toBe('            {');
    const people = await runCli(['ingest', lines, doc], ws);
    expect(people.code).toBe(0);
    expect(people.stderr.trimEnd().split('\n')).toEqual([
      `read ${lines}`,
      `read ${doc}`,
      `${lines}:4:20: warning: skipped line: invalid JSON: Unexpected end of JSON input [malformed-line]`,
      `${lines}:3: warning: span b000000000000002 (chat) appears twice; the first copy is kept [duplicate-span]`,
      `${doc}:7:13: warning: 1 span(s) of session ${T2} name a parent span that is not among its spans (span → missing parent: c000000000000001 → ffffffffffffffff): ` +
        'they are roots here, linked through that parent only once the store holds it as a call (another part of the session) [unknown-parent]',
      'ingested 2 session(s), 5 call(s) from 2 file(s), 3 warning(s) (above)', // LLM calls and an implicit MAS call per session
    ]);
    // compute --input prints them the same way for people; with --json they are log lines, stdout keeping the answer.
    const computed = await runCli(['compute', '--input', lines, '--metrics', 'LLMCallCount', '--no-store'], ws);
    expect(computed.stderr.trimEnd().split('\n')).toEqual(people.stderr.trimEnd().split('\n').slice(2, 4));
    const json = await runCli(['compute', '--input', lines, '--metrics', 'LLMCallCount', '--no-store', '--json'], ws);
    expect(json.stderr.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map(({ time: _time, ...l }) => l)).toEqual([
      { level: 40, code: 'malformed-line', message: 'skipped line: invalid JSON: Unexpected end of JSON input', file: lines, line: 4, column: 20, msg: 'ingest warning' },
      { level: 40, code: 'duplicate-span', message: 'span b000000000000002 (chat) appears twice; the first copy is kept', span: 'b000000000000002', sessionId: 's', file: lines, line: 3, msg: 'ingest warning' },
    ]);
    expect(json.json<{ sessions: SessionComputation[] }>().sessions.map((c) => c.sessionId)).toEqual(['s']);
  });

  it('ingest skips a bad file, naming it, and stores the others (exit 3); with --strict it stops there, the files before it stored (exit 2)', async () => {
    const ws = tempWorkspace();
    const bad = join(ws.dir, 'bad.json');
    writeFileSync(bad, '{"truncated": ');
    const files = [example('sessions/single-agent-tool.json'), bad, example('sessions/mcp-tools.json')];
    const run = await runCli(['ingest', ...files], ws);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`skipped ${bad}:1: invalid JSON`);
    const listed = (await runCli(['sessions', 'list', '--json'], ws)).json<{ id: string }[]>();
    expect(listed.map((x) => x.id).sort()).toEqual(['dev-assistant-55', 'weather-001']);
    const strictWs = tempWorkspace();
    const strict = await runCli(['ingest', ...files, '--strict'], strictWs);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain(`mce: ${bad}:1: invalid JSON`);
    const before = (await runCli(['sessions', 'list', '--json'], strictWs)).json<{ id: string }[]>();
    expect(before.map((x) => x.id)).toEqual(['weather-001']);
  });

  it('compute --all computes every stored session, oldest first, in chunks; --no-recursive keeps to the Session level', async () => {
    const ws = tempWorkspace();
    // 101 sessions: one more than a chunk of 100.
    const sessions = Array.from({ length: 101 }, (_, i) => ({ id: `bulk-${String(i).padStart(3, '0')}`, startTime: 1000 * i, endTime: 1000 * i + 10 + i }));
    const file = join(ws.dir, 'bulk.json');
    writeFileSync(file, JSON.stringify({ sessions }));
    expect((await runCli(['ingest', file], ws)).code).toBe(0);
    const all = (await runCli(['compute', '--all', '--metrics', 'Duration', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(all.sessions.map((c) => c.sessionId)).toEqual(sessions.map((s) => s.id));
    expect(all.sessions.map((c) => value(c, 'Duration'))).toEqual(sessions.map((_, i) => 10 + i));

    await runCli(['ingest', example('sessions/single-agent-tool.json')], ws);
    const levels = async (args: string[]) =>
      [...new Set((await runCli(['compute', 'weather-001', '--metrics', 'Duration', '--no-store', '--json', ...args], ws)).json<{ sessions: SessionComputation[] }>().sessions[0]?.results.map((r) => r.level))].sort();
    expect(await levels([])).toEqual(['AgentCall', 'LLMCall', 'MASCall', 'Session', 'ToolCall']);
    expect(await levels(['--no-recursive'])).toEqual(['Session']);
  });

  it('compute leaves out, and says, a stored session deleted while the run goes on: --all goes on (exit 0), named ids fail after the others (exit 2)', async () => {
    const ws = tempWorkspace();
    // 150 sessions: two chunks. A plugin metric deletes sessions, as another process would, while the first is computed.
    const sessions = Array.from({ length: 150 }, (_, i) => ({ id: `s-${String(i).padStart(3, '0')}`, startTime: 1000 * i, endTime: 1000 * i + 10 + i }));
    writeFileSync(join(ws.dir, 'bulk.json'), JSON.stringify({ sessions }));
    expect((await runCli(['ingest', join(ws.dir, 'bulk.json')], ws)).code).toBe(0);
    writeFileSync(
      join(ws.dir, 'deleter.mjs'),
      `export default { name: 'del', description: 'd', version: '1', metrics: () => [{ metadata: { name: 'Deleter', provider: 'del', ` +
        `levels: ['Session'], nature: 'deterministic', unit: 'x', valueRange: 'any', description: 'd', requirements: [], dependsOn: [] }, ` +
        `compute: async (session) => { await globalThis.mceDeleteDuring?.(session.id); return { value: 1 }; } }] };\n`,
    );
    // Found through the working directory given to main (not the process's): the plugin is beside it.
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'providers: [./deleter.mjs]\nmetrics:\n  Session: [Duration, del:Deleter]\n');
    const store = await openStore(ws.env.MCE_STORE_URL as string);
    const deleteAt: Record<string, string[]> = {};
    (globalThis as { mceDeleteDuring?: (id: string) => Promise<void> }).mceDeleteDuring = async (id) => {
      if (deleteAt[id]) await store.deleteSessions(deleteAt[id]);
    };
    try {
      // s-001 goes while it is computed (its results come after it), s-120 before its chunk is read.
      deleteAt['s-001'] = ['s-001', 's-120'];
      const all = await runCli(['compute', '--all', '--json'], ws);
      expect(all.code).toBe(0);
      const computed = all.json<{ sessions: SessionComputation[] }>().sessions.map((c) => c.sessionId);
      expect(computed).toEqual(sessions.map((x) => x.id).filter((id) => id !== 's-001' && id !== 's-120'));
      expect(all.stderr).toContain('"sessions":["s-001","s-120"],"msg":"sessions deleted while the run went on: not computed"');
      const stored = await store.queryMetricResults({ metrics: ['Duration'], limit: 1000 });
      expect(new Set(stored.map((r) => r.result.sessionId)).size).toBe(148);
      expect(stored.some((r) => r.result.sessionId === 's-001')).toBe(false);

      // Named ids: the others are computed, stored and printed, then the run fails naming the one left out.
      deleteAt['s-002'] = ['s-003'];
      const named = await runCli(['compute', 's-002', 's-003', 's-004', '--json'], ws);
      expect([named.code, named.stderr.split('\n').at(-2)]).toEqual([2, 'mce: Session not found: s-003']);
      expect(named.stderr).toContain('"sessionId":"s-003","results":2,"msg":"metric results rejected: their session is not stored"');
      expect(named.json<{ sessions: SessionComputation[] }>().sessions.map((c) => c.sessionId)).toEqual(['s-002', 's-004']);
      expect(await store.getMetricResults('s-003', { recursive: true })).toEqual([]);
      // Named and missing from the start stays the usage error it was: nothing computed.
      const missing = await runCli(['compute', 's-003', 's-005', '--json'], ws);
      expect([missing.code, missing.stdout, missing.stderr]).toEqual([2, '', 'mce: Session not found: s-003\n']);
    } finally {
      delete (globalThis as { mceDeleteDuring?: unknown }).mceDeleteDuring;
      await store.close();
    }
  });

  it('compute --no-store of stored sessions follows the configuration (engine.recursive: false → Session level only)', async () => {
    const ws = tempWorkspace();
    await runCli(['ingest', example('sessions/single-agent-tool.json')], ws);
    const config = join(ws.dir, 'mce_config.yaml');
    writeFileSync(config, 'engine:\n  recursive: false\nmetrics:\n  Session: [Duration]\n  LLMCall: [Duration]\n');
    const run = await runCli(['compute', 'weather-001', '--no-store', '--json', '--worker-config', config], ws);
    expect(run.code).toBe(0);
    expect(run.json<{ sessions: SessionComputation[] }>().sessions[0]?.results.map((r) => `${r.name}@${r.level}`)).toEqual(['Duration@Session']);
    const stored = (await runCli(['kg', 'metric', 'get', 'weather-001', '--recursive', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(stored.sessions[0]?.results).toEqual([]);
  });

  it('an unknown session id, metric name or store is a clear error', async () => {
    const ws = tempWorkspace();
    // Nothing ingested yet: commands that only read do not create an empty store at a (misspelt?) path.
    const db = join(ws.dir, 'mce.db');
    for (const args of [['compute', 'no-such-session'], ['kg', 'metric', 'get', 'x'], ['sessions', 'list']]) {
      const none = await runCli(args, ws);
      expect([none.code, none.stderr], args.join(' ')).toEqual([
        2, `mce: no store at ${db}: nothing has been ingested there yet (mce ingest FILE…), or the path is misspelt\n`,
      ]);
    }
    expect(readdirSync(ws.dir).filter((f) => f.endsWith('.db'))).toEqual([]); // no store, no record/replay cache
    await runCli(['ingest', example('sessions/single-agent-tool.json')], ws);
    const run = await runCli(['compute', 'no-such-session'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no-such-session');
    const get = await runCli(['kg', 'metric', 'get', 'no-such-session'], ws);
    expect([get.code, get.stderr]).toEqual([2, 'mce: Session not found: no-such-session\n']);
    const misspelt = await runCli(['kg', 'metric', 'get', 'weather-001', '--metrics', 'Durration'], ws);
    expect([misspelt.code, misspelt.stderr]).toEqual([2, 'mce: Unknown metric "Durration" (did you mean "Duration"?)\n']);
  });

  it('sessions delete removes sessions with their results; exit 2 when none of the ids is stored', async () => {
    const ws = tempWorkspace();
    const db = join(ws.dir, 'mce.db');
    const none = await runCli(['sessions', 'delete', 'weather-001'], ws);
    expect([none.code, none.stderr]).toEqual([2, `mce: no store at ${db}: nothing has been ingested there yet (mce ingest FILE…), or the path is misspelt\n`]);
    expect(readdirSync(ws.dir).filter((f) => f.endsWith('.db'))).toEqual([]);
    await runCli(['ingest', example('sessions')], ws);
    expect((await runCli(['compute', '--all', '--metrics', 'Duration'], ws)).code).toBe(0);
    const ids = async () => (await runCli(['sessions', 'list', '--json'], ws)).json<{ id: string }[]>().map((x) => x.id).sort();
    expect(await ids()).toEqual(['dev-assistant-55', 'support-7781', 'weather-001']);

    const some = await runCli(['sessions', 'delete', 'weather-001', 'nope'], ws);
    expect([some.code, some.stdout, some.stderr]).toEqual([0, 'weather-001\n', 'deleted 1 session(s); not stored: nope\n']);
    expect(await ids()).toEqual(['dev-assistant-55', 'support-7781']);
    expect((await runCli(['kg', 'results', '--session', 'weather-001', '--json'], ws)).json()).toEqual([]);
    const again = await runCli(['sessions', 'delete', 'weather-001', '--json'], ws);
    expect([again.code, again.stdout, again.stderr]).toEqual([2, '', 'mce: Session not found: weather-001\n']);
    const both = await runCli(['sessions', 'delete', 'support-7781', 'dev-assistant-55', '--json'], ws);
    expect([both.code, both.json()]).toEqual([0, { deleted: ['support-7781', 'dev-assistant-55'], notFound: [] }]);
    expect(await ids()).toEqual([]);
    expect((await runCli(['kg', 'results', '--json'], ws)).json()).toEqual([]);
    // Ingested again, a session is new: it has no results until computed.
    await runCli(['ingest', example('sessions/single-agent-tool.json')], ws);
    expect(await ids()).toEqual(['weather-001']);
    expect((await runCli(['kg', 'metric', 'get', 'weather-001', '--recursive', '--json'], ws)).json<{ sessions: SessionComputation[] }>().sessions[0]?.results).toEqual([]);
  });

  it('kg results lists results across sessions, filtered and paged; a bad option exits 2 naming it', async () => {
    const ws = tempWorkspace();
    await runCli(['ingest', example('sessions')], ws);
    expect((await runCli(['compute', '--all', '--metrics', 'Duration'], ws)).code).toBe(0);
    type Row = { result: { id: string; sessionId: string; timestamp: string; result: number; measures: { level: string; id: string } }; metric: { id: string } };
    const rows = async (...args: string[]) => {
      const run = await runCli(['kg', 'results', '--json', ...args], ws);
      expect(run.code, run.stderr).toBe(0);
      return run.json<Row[]>();
    };
    const facts = (list: Row[]) => list.map((r) => [r.result.sessionId, r.result.measures.level, r.result.measures.id, r.result.result, r.metric.id]);
    const sessions = await rows('--levels', 'Session');
    expect(facts(sessions).sort()).toEqual([
      ['dev-assistant-55', 'Session', 'dev-assistant-55', 9000, 'mce:Duration'],
      ['support-7781', 'Session', 'support-7781', 12000, 'mce:Duration'],
      ['weather-001', 'Session', 'weather-001', 4200, 'mce:Duration'],
    ]);
    // Newest first, ties by id.
    const order = (list: Row[]) => list.every((r, i) => i === 0 || list[i - 1]!.result.timestamp > r.result.timestamp || (list[i - 1]!.result.timestamp === r.result.timestamp && list[i - 1]!.result.id < r.result.id));
    const all = await rows('--limit', '1000');
    expect([all.length, order(all), order(sessions)]).toEqual([26, true, true]);
    expect(facts(await rows('--levels', 'session', '--min', '5000', '--max', '10000'))).toEqual([['dev-assistant-55', 'Session', 'dev-assistant-55', 9000, 'mce:Duration']]);
    expect(facts(await rows('--session', 'weather-001', '--session', 'support-7781', '--levels', 'ToolCall', '--metrics', 'mce:Duration')).sort()).toEqual([
      ['support-7781', 'ToolCall', 'c000000000000006', 500, 'mce:Duration'],
      ['support-7781', 'ToolCall', 'c000000000000007', 1400, 'mce:Duration'],
      ['weather-001', 'ToolCall', 'b7ad6b7169203334', 600, 'mce:Duration'],
    ]);
    expect((await rows('--limit', '2', '--offset', '1')).map((r) => r.result.id)).toEqual(all.slice(1, 3).map((r) => r.result.id));
    expect(await rows('--limit', '1000', '--offset', '25')).toEqual(all.slice(25));
    expect(await rows('--from', '2999-01-01')).toEqual([]);
    expect(await rows('--to', all.at(-1)!.result.timestamp, '--limit', '1000')).toEqual(all.filter((r) => r.result.timestamp === all.at(-1)!.result.timestamp));

    const table = await runCli(['kg', 'results', '--levels', 'Session', '--min', '10000'], ws);
    expect(table.stdout.split('\n')[0]).toBe('Time                      Session       Level    Measures   Metric    Value  Unit');
    expect(table.stdout.split('\n')[2]?.split(/ {2,}/)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), 'support-7781', 'Session', '(session)', 'Duration', '12000', 'ms']);
    expect((await runCli(['kg', 'results', '--min', '-5', '--max', '-1'], ws)).stdout).toBe('(no results)\n');

    const bad = await runCli(['kg', 'results', '--levels', 'Sesion', '--limit', 'x'], ws);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'mce: --levels must name ontology levels: Session, MASCall, AgentCall, TaskCall, LLMCall, ToolCall (got "Sesion"); ' +
        '--limit must be a non-negative integer (got "x")\n',
    ]);
    const window = await runCli(['kg', 'results', '--from', '2026-01-02', '--to', '2026-01-01'], ws);
    expect([window.code, window.stderr]).toEqual([2, 'mce: --from is later than --to\n']);
    const misspelt = await runCli(['kg', 'results', '--metrics', 'Durration'], ws);
    expect([misspelt.code, misspelt.stderr]).toEqual([2, 'mce: Unknown metric "Durration" (did you mean "Duration"?)\n']);
    const empty = await runCli(['kg', 'results', '--session', ''], ws);
    expect([empty.code, empty.stderr]).toEqual([2, 'mce: --session must not be empty\n']);

    // 100 a page unless --limit says otherwise: three more runs make 104 results.
    for (let i = 0; i < 3; i++) expect((await runCli(['compute', '--all', '--metrics', 'Duration'], ws)).code).toBe(0);
    expect([(await rows()).length, (await rows('--limit', '1000')).length]).toEqual([100, 104]);
  });

  it('kg summary gives the figures per metric and level, as a table or JSON; a bad option exits 2 naming it', async () => {
    const ws = tempWorkspace();
    await runCli(['ingest', example('sessions')], ws);
    expect((await runCli(['compute', '--all', '--metrics', 'Duration'], ws)).code).toBe(0);
    const json = await runCli(['kg', 'summary', '--levels', 'Session', '--json'], ws);
    // Durations 4200, 9000, 12000: nearest ranks 2, 3, 3.
    expect([json.code, json.json()]).toEqual([
      0,
      [
        {
          metric: expect.objectContaining({ id: 'mce:Duration', name: 'Duration', computedBy: 'mce', unit: 'ms' }),
          level: 'Session', count: 3, mean: 8400, min: 4200, max: 12000, p50: 9000, p90: 12000, p95: 12000, sessions: 3,
          first: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), last: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
        },
      ],
    ]);
    const all = (await runCli(['kg', 'summary', '--json'], ws)).json<{ level: string; count: number }[]>();
    // One metric: its levels in ontology order, every result counted once.
    const levels = all.map((r) => r.level);
    expect(levels).toEqual([...levels].sort((a, b) => ONTOLOGY_LEVELS.indexOf(a as OntologyLevel) - ONTOLOGY_LEVELS.indexOf(b as OntologyLevel)));
    expect([levels.length > 1, all.reduce((n, r) => n + r.count, 0)]).toEqual([true, 26]);

    const table = await runCli(['kg', 'summary', '--levels', 'Session', '--session', 'weather-001', '--session', 'support-7781'], ws);
    expect(table.stdout.split('\n').map((line) => line.split(/ {2,}/))).toEqual([
      ['Metric', 'Level', 'Count', 'Mean', 'p50', 'p95', 'Min', 'Max', 'Unit', 'Sessions'],
      [expect.stringMatching(/^─+$/), ...Array(9).fill(expect.stringMatching(/^─+$/))],
      ['Duration', 'Session', '2', '8100', '4200', '12000', '4200', '12000', 'ms', '2'],
      [''],
    ]);
    expect((await runCli(['kg', 'summary', '--min', '-5', '--max', '-1'], ws)).stdout).toBe('(no results)\n');

    const bad = await runCli(['kg', 'summary', '--levels', 'Sesion', '--min', 'x'], ws);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'mce: --levels must name ontology levels: Session, MASCall, AgentCall, TaskCall, LLMCall, ToolCall (got "Sesion"); --min must be a number (got "x")\n',
    ]);
    const paged = await runCli(['kg', 'summary', '--limit', '5'], ws);
    // No paging here: --limit is no option of kg summary (commander says so, with the usage).
    expect([paged.code, paged.stderr.split('\n')[0]]).toEqual([2, "error: unknown option '--limit'"]);
    const misspelt = await runCli(['kg', 'summary', '--metrics', 'Durration'], ws);
    expect([misspelt.code, misspelt.stderr]).toEqual([2, 'mce: Unknown metric "Durration" (did you mean "Duration"?)\n']);
  });

  it('exports trace files as session JSON that re-imports to the same sessions', async () => {
    const ws = tempWorkspace();
    const out = join(ws.dir, 'out.json');
    const run = await runCli(['sessions', 'export', '--input', example('traces'), '-o', out], ws);
    expect(run.code).toBe(0);
    const direct = (await runCli(['compute', '--input', example('traces'), '--json', '--no-store', '--run-id', 'x'], ws)).json<{ sessions: SessionComputation[] }>();
    const again = (await runCli(['compute', '--input', out, '--json', '--no-store', '--run-id', 'x'], ws)).json<{ sessions: SessionComputation[] }>();
    const strip = (s: SessionComputation[]) => s.map((c) => ({ ...c, results: c.results.map(({ timestamp: _t, ...r }) => r) }));
    expect(strip(again.sessions)).toEqual(strip(direct.sessions));
  });

  it('an export to a path that cannot be written exits 2 naming it, and leaves no file behind', async () => {
    const ws = tempWorkspace();
    const missing = join(ws.dir, 'no-such-folder', 'out.json');
    const run = await runCli(['sessions', 'export', '--input', example('traces'), '-o', missing], ws);
    expect([run.code, run.stderr]).toEqual([2, `mce: ${missing}: cannot write: ENOENT: no such file or directory, open '${missing}'\n`]);
    const folder = await runCli(['sessions', 'export', '--input', example('traces'), '-o', ws.dir], ws);
    expect([folder.code, folder.stderr]).toEqual([2, `mce: ${ws.dir}: cannot write: it is a folder\n`]);
    expect(readdirSync(ws.dir).filter((f) => f.includes('partial'))).toEqual([]);
  });
});

describe('MCP metrics from the CLI', () => {
  it('scores an MCP session with no LLM in system_one mode and skips a session without MCP servers', async () => {
    const ws = tempWorkspace();
    const env = { ...ws.env, MCE_EVAL_MODE: 'system_one' };
    // Metrics read the process environment (the CLI's own in real runs).
    vi.stubEnv('MCE_EVAL_MODE', 'system_one');
    const run = await runCli(
      ['compute', '--input', example('sessions/mcp-tools.json'), example('sessions/single-agent-tool.json'), '--metrics', 'MCPUse', '--json', '--no-store'],
      { dir: ws.dir, env },
    );
    expect(run.code).toBe(0);
    const sessions = run.json<{ sessions: SessionComputation[] }>().sessions;
    const mcp = sessions.find((s) => s.sessionId === 'dev-assistant-55') as SessionComputation;
    const use = mcp.results.find((r) => r.level === 'Session') as SessionComputation['results'][number];
    // The same value the engine gives for the same session with eval_mode set on the metric itself.
    const engine = new MetricEngine();
    engine.registerProvider(nativeProvider);
    const session = SessionSchema.parse(JSON.parse(readFileSync(example('sessions/mcp-tools.json'), 'utf8'))) as Session;
    const direct = await engine.computeLoadedSession(session, { metrics: { Session: ['MCPUse'] }, metricOptions: { MCPUse: { eval_mode: 'system_one' } } });
    expect(use.result).toBe(direct.results[0]?.result);
    // The local System One model's score of this example (the weights of the fourth revision): the weighted mean of
    // its three answers' values, each weighing e^(−3·value), so the lowest counts most.
    expect(use.result).toBeCloseTo(0.9363754669388187, 12);
    expect([use.evaluationModel, use.evaluationTotalTokenCount, use.evaluationCost]).toEqual([null, 0, 0]);
    expect(use.details).toMatchObject({ evalMode: 'system_one', evalModeSource: 'env', confidence: expect.any(Number) });
    expect(use.reasoning).toContain('System One');
    const weather = sessions.find((s) => s.sessionId === 'weather-001') as SessionComputation;
    expect(weather.results).toEqual([]);
    expect(weather.skipped.map((s) => [s.name, s.level])).toEqual([['MCPUse', 'Session'], ['MCPUse', 'AgentCall']]);
    vi.unstubAllEnvs();
  });
});

describe('mce set-eval-mode', () => {
  it('persists the mode, prints it with where it came from, and the env overrides it', async () => {
    const ws = tempWorkspace();
    expect((await runCli(['set-eval-mode'], ws)).stdout).toBe('llm (the default)\n');
    expect((await runCli(['set-eval-mode', 'hybrid'], ws)).code).toBe(0);
    expect((await runCli(['set-eval-mode'], ws)).stdout).toBe(`hybrid (from ${join(ws.dir, 'user-config', 'config.yaml')})\n`);
    // What is saved is echoed in its normal spelling.
    expect((await runCli(['set-eval-mode', 'System-One'], ws)).stdout).toBe(`eval mode set to system_one in ${join(ws.dir, 'user-config', 'config.yaml')}\n`);
    expect((await runCli(['set-eval-mode', 'hybrid'], ws)).code).toBe(0);
    const env = await runCli(['set-eval-mode'], { dir: ws.dir, env: { ...ws.env, MCE_EVAL_MODE: 'system_one' } });
    expect(env.stdout).toBe('system_one (from MCE_EVAL_MODE)\n');
    const bad = await runCli(['set-eval-mode', 'fast'], ws);
    expect(bad.code).toBe(2);
    const badEnv = await runCli(['set-eval-mode'], { dir: ws.dir, env: { ...ws.env, MCE_EVAL_MODE: 'fast' } });
    expect([badEnv.code, badEnv.stderr]).toEqual([2, expect.stringContaining('MCE_EVAL_MODE')]);
  });

  it('--env-file loads variables before the command runs, and a missing one is a usage error', async () => {
    const ws = tempWorkspace();
    const file = join(ws.dir, 'mce.env');
    writeFileSync(file, 'MCE_EVAL_MODE=hybrid\n');
    expect((await runCli(['--env-file', file, 'set-eval-mode'], ws)).stdout).toBe('hybrid (from MCE_EVAL_MODE)\n');
    const missing = await runCli(['--env-file', join(ws.dir, 'none.env'), 'set-eval-mode'], ws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('none.env: file not found');
  });
});

describe('the mce executable', () => {
  it('runs from the built package', () => {
    const bin = join(repo, 'packages/client/bin/mce.js');
    const out = spawnSync(process.execPath, [bin, 'metric', 'show', 'Cost', '--json'], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ name: 'Cost', unit: 'USD', provider: 'mce' });
    expect(out.stderr).toBe('');
  });

  it('says so, exit 1, when what the command waits for never settles (it exited 13 without a word)', () => {
    const ws = tempWorkspace();
    const plugin = join(ws.dir, 'never.mjs');
    writeFileSync(
      plugin,
      `export default { name: 'nv', description: 'd', version: '1', metrics: () => [{ metadata: { name: 'Never', provider: 'nv', ` +
        `levels: ['Session'], nature: 'deterministic', unit: 'x', valueRange: 'any', description: 'd', requirements: [], dependsOn: [] }, ` +
        `compute: () => new Promise(() => {}) }] };\n`,
    );
    const config = join(ws.dir, 'mce_config.yaml');
    writeFileSync(config, 'providers: [./never.mjs]\nmetrics:\n  Session: [Duration, nv:Never]\n');
    const bin = join(repo, 'packages/client/bin/mce.js');
    const out = spawnSync(process.execPath, [bin, '--config', config, 'compute', '--input', example('sessions/single-agent-tool.json'), '--no-store'], {
      encoding: 'utf8',
      env: ws.env,
    });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^mce: stopped before the command finished: something it waited for never settled/);
  });
});
