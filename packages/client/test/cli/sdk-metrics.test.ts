/**
 * Metrics declared in mce_config.yaml (`sdk_metrics:`, read by the discovered @mce/provider-sdk) through the CLI:
 * listed and shown, computed by `mce compute` (the judged one against a scripted judge, its exact prompt, score and
 * priced usage checked), and a bad declaration refused at its file and line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MetricResult, SessionComputation } from '@mce/core';
import { runCli, tempWorkspace } from './run-cli.js';
import { scoreTokens } from '../../../../test-support/scripted-llm-server.mjs';
import { scriptedJudgeServer } from '../../../../test-support/judge-env.js';

const example = fileURLToPath(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url));

const SDK_METRICS = `sdk_metrics:
  - name: Politeness
    kind: judged
    levels: [AgentCall, Session]
    criteria: "Is the final response polite to the user?"
    rubric: {1: "rude", 3: "neutral", 5: "very polite"}
    inputs: [user_input, final_response]
    threshold: 0.5
  - name: ToolCallsPerLLMCall
    kind: deterministic
    description: Tool calls per LLM call
    levels: [Session, AgentCall]
    expression: count(ToolCall) / count(LLMCall)
  - name: SlowCallShare
    kind: deterministic
    levels: [Session]
    expression: share(LLMCall, duration > 1.5)
    unit: share
  - name: ToolsPerTool
    kind: deterministic
    levels: [ToolCall]
    expression: count(ToolCall) / count(LLMCall)
`;

function workspace(config: string) {
  const ws = tempWorkspace();
  const file = join(ws.dir, 'mce_config.yaml');
  writeFileSync(file, config);
  return { ws, file };
}

describe('sdk metrics through the CLI', () => {
  const judge = scriptedJudgeServer();

  it('lists and shows the declared metrics', async () => {
    const { ws } = workspace(SDK_METRICS);
    const listed = await runCli(['metric', 'list', '--all', '--provider', 'sdk', '--json'], ws);
    expect(listed.code).toBe(0);
    const rows = listed.json<Array<{ name: string; nature: string; levels: string[]; unit: string }>>();
    expect(rows.map((r) => [r.name, r.nature, r.levels.join(','), r.unit])).toEqual([
      ['Politeness', 'llm-judged', 'AgentCall,Session', 'dimensionless'],
      ['ToolCallsPerLLMCall', 'deterministic', 'Session,AgentCall', 'dimensionless'],
      ['SlowCallShare', 'deterministic', 'Session', 'share'],
      ['ToolsPerTool', 'deterministic', 'ToolCall', 'dimensionless'],
    ]);
    const shown = await runCli(['metric', 'show', 'sdk:Politeness', '--json'], ws);
    expect(shown.json()).toMatchObject({
      name: 'Politeness', provider: 'sdk', nature: 'llm-judged', valueRange: '0.0-1.0',
      description: 'Judged: Is the final response polite to the user?', requirements: ['user_input', 'final_response'], options: ['model', 'threshold'],
    });
    const human = await runCli(['metric', 'show', 'sdk:ToolCallsPerLLMCall'], ws);
    expect(human.stdout).toContain('Tool calls per LLM call');
  });

  it('computes judged and deterministic ones with mce compute, the judge\'s prompt, score and usage in the results', async () => {
    const { ws } = workspace(`${SDK_METRICS}metrics:\n  Session: [sdk:Politeness, ToolCallsPerLLMCall, SlowCallShare]\n  AgentCall: [sdk:ToolCallsPerLLMCall]\n  ToolCall: [sdk:ToolsPerTool]\n`);
    judge.server.requests.length = 0;
    const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
    judge.server.setScript([{ text: 'Friendly and clear.\nScore: 4', usage, logprobs: scoreTokens('Friendly and clear.', { ' 4': 0.75, ' 5': 0.25 }) }]);
    const run = await runCli(['compute', '--input', example, '--json'], ws);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('some metrics failed; their errors are in the output');
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    // The CLI's JSON rows: level and provider beside the ontology fields.
    type Row = Omit<MetricResult, 'measures'> & { provider: string; level: string };
    const byName = new Map((c.results as unknown as Row[]).map((r) => [`${r.level}:${r.name}`, r]));
    expect(byName.get('Session:ToolCallsPerLLMCall')?.result).toBe(0.5);
    expect(byName.get('AgentCall:ToolCallsPerLLMCall')?.result).toBe(0.5);
    // LLM calls of 1.48 s and 1.8 s: one over 1.5 s.
    expect(byName.get('Session:SlowCallShare')?.result).toBe(0.5);
    const politeness = byName.get('Session:Politeness')!;
    expect(politeness.result).toBeCloseTo((4.25 - 1) / 4, 9);
    expect(politeness.provider).toBe('sdk');
    expect([politeness.evaluationModel, politeness.evaluationPromptTokenCount, politeness.evaluationCompletionTokenCount, politeness.evaluationTotalTokenCount]).toEqual(['gpt-4o-mini', 1000, 100, 1100]);
    expect(politeness.evaluationCost).toBeCloseTo(1000 * 1.5e-7 + 100 * 6e-7, 12); // gpt-4o-mini's committed prices
    expect(politeness.details).toMatchObject({ threshold: 0.5, success: true, scoring: 'logprob' });
    expect(judge.server.requests).toHaveLength(1);
    const messages = judge.server.requests[0]!.body.messages!;
    expect(messages[0]!.content).toContain('Criterion: Is the final response polite to the user?\n\nRubric (scores not listed lie between their neighbours):\n5: very polite\n3: neutral\n1: rude');
    expect(messages[1]!.content).toBe(
      "## Judged\nsession weather-001\n\n## User input\nWhat's the weather in Lyon right now?\n\n## Final response\nIt is 14 °C and cloudy in Lyon right now.",
    );
    // A tool call has no LLM call below it: a failure naming the division, never a stored number.
    expect(c.failed).toEqual([expect.objectContaining({ name: 'ToolsPerTool', error: expect.stringContaining('at column 17: division by zero') })]);
    const stored = (await runCli(['kg', 'metric', 'get', 'weather-001', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    const storedRows = (stored.sessions[0]?.results ?? []) as unknown as Row[];
    expect(storedRows.map((r) => r.name).sort()).toEqual(['Politeness', 'SlowCallShare', 'ToolCallsPerLLMCall']); // the session's own
    expect(storedRows.find((r) => r.name === 'Politeness')).toMatchObject({ provider: 'sdk', evaluationTotalTokenCount: 1100, result: politeness.result });
  });

  it('fails an unparseable judge reply and stores nothing for it', async () => {
    const { ws } = workspace(`${SDK_METRICS}metrics:\n  Session: [sdk:Politeness]\n`);
    judge.server.setScript([{ text: 'Polite enough, I suppose.' }]);
    const run = await runCli(['compute', '--input', example, '--json'], ws);
    const [c] = run.json<{ sessions: SessionComputation[] }>().sessions as [SessionComputation];
    expect(c.results).toEqual([]);
    expect(c.failed).toEqual([expect.objectContaining({ name: 'Politeness', error: expect.stringContaining('sdk:Politeness: the judge reply has no "Score: N" line') })]);
    const stored = (await runCli(['kg', 'metric', 'get', 'weather-001', '--json'], ws)).json<{ sessions: SessionComputation[] }>();
    expect(stored.sessions[0]?.results ?? []).toEqual([]);
  });

  it('refuses a bad declaration at its line, naming the entry and the field', async () => {
    const bad = `sdk_metrics:
  - name: Ratio
    kind: deterministic
    levels: [Session]
    expression: count(ToolCall) / count(LLMCalls)
  - name: Judged
    kind: judged
    levels: [Session]
    inputs: [user_input, answer]
    colour: blue
  - name: Duration
    kind: deterministic
    levels: [Session]
    expression: duration
`;
    const { ws } = workspace(bad);
    const run = await runCli(['metric', 'list', '--provider', 'sdk'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      [
        'mce: mce_config.yaml: invalid configuration',
        '  mce_config.yaml:5: sdk_metrics.0.expression: Ratio: column 25: "LLMCalls" is not a level (levels: Session, MASCall, AgentCall, TaskCall, LLMCall, ToolCall)',
        '  mce_config.yaml:9: sdk_metrics.1.inputs.1: Judged: Invalid option: expected one of "user_input"|"final_response"|"messages"|"tool_arguments"|"tool_results"',
        '  mce_config.yaml:10: sdk_metrics.1.colour: Judged: unknown field "colour"',
        '',
      ].join('\n'),
    );
    // The same refusal when computing: nothing runs.
    const compute = await runCli(['compute', '--input', example, '--no-store'], ws);
    expect([compute.code, compute.stderr.split('\n')[1]]).toEqual([2, run.stderr.split('\n')[1]]);
  });

  it('refuses a name another metric has, and a shape the schema refuses', async () => {
    const clash = workspace('sdk_metrics:\n  - name: Politeness\n    kind: deterministic\n    levels: [Session]\n    expression: "1"\n  - name: Duration\n    kind: deterministic\n    levels: [Session]\n    expression: duration\n');
    const run = await runCli(['metric', 'list'], clash.ws);
    expect([run.code, run.stderr]).toEqual([2, 'mce: mce_config.yaml: invalid configuration\n  mce_config.yaml:6: sdk_metrics.1.name: Duration is taken by mce:Duration: give this metric another name\n']);
    const twice = workspace('sdk_metrics:\n  - {name: A, kind: deterministic, levels: [Session], expression: "1"}\n  - {name: A, kind: deterministic, levels: [Session], expression: "2"}\n');
    expect((await runCli(['metric', 'list'], twice.ws)).stderr).toContain('mce_config.yaml:3: sdk_metrics.1.name: A is declared at sdk_metrics.0 already');
    const shape = workspace('sdk_metrics:\n  - name: A\n    kind: magic\n    levels: [Session]\n');
    expect((await runCli(['metric', 'list'], shape.ws)).stderr).toContain('mce_config.yaml:3: sdk_metrics.0.kind: must be one of judged, deterministic');
    const steps = workspace('sdk_metrics:\n  - name: A\n    kind: judged\n    levels: [Session]\n    inputs: [messages]\n');
    expect((await runCli(['metric', 'list'], steps.ws)).stderr).toContain('mce_config.yaml:2: sdk_metrics.0.criteria: A: give criteria or evaluation_steps: what the judge scores');
  });

  it('says what to install when no provider reads sdk_metrics', async () => {
    const { ws } = workspace('provider_discovery: false\nsdk_metrics:\n  - {name: A, kind: deterministic, levels: [Session], expression: "1"}\n');
    const run = await runCli(['metric', 'list'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mce_config.yaml:3: sdk_metrics: no provider package that reads sdk_metrics is loaded: install @mce/provider-sdk');
  });
});
