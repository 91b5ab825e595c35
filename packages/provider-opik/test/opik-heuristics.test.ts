import { describe, expect, it } from 'vitest';
import { MetricEngine, MetricRegistry, type MetricValue, type OntologyLevel, type Session } from '@mce/core';
import { opikProvider } from '@mce/provider-opik';
import { ANSWER, REFERENCE, ragSession, metricContext, valueAt, failureAt } from '../../../test-support/library-session.js';

// The provider's own metrics, on the default judge: no judge is configured in this file, none is needed.
const metrics = new Map(opikProvider.metrics().map((m) => [m.metadata.name, m]));

const ctx = metricContext;

function answering(text: string, id = 'h'): Session {
  const session = ragSession(id);
  session.finalResponse = text;
  session.agentCalls[0]!.finalResponse = text;
  session.llmCalls[0]!.outputMessages = [{ role: 'assistant', content: text }];
  return session;
}

const valueOf = (name: string, options: Record<string, unknown> = {}, session = ragSession(), level: OntologyLevel = 'Session'): Promise<MetricValue> =>
  valueAt(metrics.get(name)!, session, level, options);
const failureOf = (name: string, options: Record<string, unknown> = {}, session = ragSession()): Promise<Error> =>
  failureAt(metrics.get(name)!, session, 'Session', options);

describe('opik heuristic metrics', () => {
  it('are deterministic, need no judge, and list the options they read', () => {
    for (const name of ['IsJson', 'Contains', 'RegexMatch', 'ExactMatch']) {
      expect(metrics.get(name)?.metadata).toMatchObject({ nature: 'deterministic', valueRange: '0 or 1', levels: ['Session', 'MASCall', 'AgentCall', 'LLMCall'] });
      expect(metrics.get(name)?.cacheKey).toBeUndefined();
    }
    expect(metrics.get('Contains')?.metadata.options).toEqual(['substring', 'case_sensitive']);
    expect(metrics.get('RegexMatch')?.metadata.options).toEqual(['pattern', 'flags']);
    expect(metrics.get('ExactMatch')?.metadata.options).toEqual(['reference']);
    expect(metrics.get('IsJson')?.metadata.options).toEqual([]);
  });

  it('IsJson: 1 for a JSON output (an LLM call\'s, an agent\'s, the session\'s), 0 otherwise, no usage', async () => {
    const json = answering('{"year": 1889, "city": "Paris"}');
    for (const level of ['LLMCall', 'AgentCall', 'Session'] as const) {
      const result = await valueOf('IsJson', {}, json, level);
      expect(result).toEqual({ value: 1, reasoning: 'IsJson: Output is valid JSON.', details: { library: 'opik@2.0.40' } });
    }
    const prose = await valueOf('IsJson');
    expect([prose.value, prose.reasoning, prose.evaluation]).toEqual([0, 'IsJson: Output is not valid JSON', undefined]);
  });

  it('Contains: the substring option, case-insensitive unless case_sensitive', async () => {
    expect((await valueOf('Contains', { substring: 'eiffel tower' })).value).toBe(1);
    expect((await valueOf('Contains', { substring: 'eiffel tower', case_sensitive: true })).value).toBe(0);
    expect(await valueOf('Contains', { substring: 'Eiffel Tower', case_sensitive: true })).toMatchObject({ value: 1, reasoning: 'Contains: "Eiffel Tower" found in output.' });
    expect(await valueOf('Contains', { substring: 'London' })).toMatchObject({ value: 0, reasoning: 'Contains: "London" not found in output.' });
  });

  it('RegexMatch: the pattern option with optional flags', async () => {
    expect(await valueOf('RegexMatch', { pattern: '\\b18\\d\\d\\b' })).toMatchObject({ value: 1, reasoning: 'Regex: Output matches the regex pattern: \\b18\\d\\d\\b' });
    expect((await valueOf('RegexMatch', { pattern: '^\\d+$' })).value).toBe(0);
    expect((await valueOf('RegexMatch', { pattern: '^the eiffel' })).value).toBe(0);
    expect((await valueOf('RegexMatch', { pattern: '^the eiffel', flags: 'i' })).value).toBe(1);
  });

  it('ExactMatch: the reference option, else the reference attribute', async () => {
    expect(await valueOf('ExactMatch', { reference: ANSWER })).toMatchObject({ value: 1, reasoning: 'Exact match: Match' });
    expect(await valueOf('ExactMatch', { reference: ANSWER.toLowerCase() })).toMatchObject({ value: 0, reasoning: 'Exact match: No match' });
    expect((await valueOf('ExactMatch', {}, answering(REFERENCE))).value).toBe(1);
    expect((await valueOf('ExactMatch')).value).toBe(0); // the attribute's reference is not the answer
  });

  it('a missing or malformed option is a failed result naming it', async () => {
    expect((await failureOf('Contains')).message).toBe('opik:Contains: set the metric\'s "substring" option (the text the output must contain)');
    expect((await failureOf('Contains', { substring: 'x', case_sensitive: 'yes' })).message).toBe('opik:Contains: option "case_sensitive" must be true or false, got "yes"');
    expect((await failureOf('RegexMatch')).message).toMatch(/^opik:RegexMatch: set the metric's "pattern" option/);
    expect((await failureOf('RegexMatch', { pattern: '(' })).message).toMatch(/^opik:RegexMatch: option "pattern"\/"flags" is not a valid regular expression: .*Unterminated group/);
    expect((await failureOf('RegexMatch', { pattern: 'a', flags: 'q' })).message).toMatch(/^opik:RegexMatch: option "pattern"\/"flags" is not a valid regular expression/);
    const error = await failureOf('ExactMatch', {}, ragSession('r', { reference: false }));
    expect([error.name, error.message]).toEqual(['MissingJudgeInputError', 'opik:ExactMatch: session r has no reference answer (set the metric\'s "reference" option or a "reference" attribute)']);
    expect(((await failureOf('Contains')) as Error & { kind?: string }).kind).toBe('bad-input');
  });

  it('no output fails; an LLM call that answered with tool calls only is skipped', async () => {
    const silent = ragSession('s');
    silent.finalResponse = undefined;
    silent.agentCalls = [];
    silent.llmCalls = [];
    expect((await failureOf('IsJson', {}, silent)).message).toMatch(/^opik:IsJson: session s has no response/);
    const session = ragSession('t');
    session.llmCalls[0]!.outputMessages = [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search_docs', arguments: {} }] }];
    const outcome = await metrics.get('IsJson')!.compute(session.llmCalls[0]!, ctx(session, 'LLMCall'));
    expect(outcome).toEqual({ skipped: 'the LLM call answered with tool calls only: no text output' });
  });

  it('run by the engine under their telemetry-hub names, without a judge; a missing option fails that metric only', async () => {
    const registry = new MetricRegistry();
    registry.registerProvider(opikProvider);
    const engine = new MetricEngine({}, registry);
    const run = await engine.computeLoadedSession(answering('{"ok": true}', 'e'), {
      metrics: { Session: ['opik.IsJson', 'opik.Contains', 'opik:RegexMatch'], LLMCall: ['opik.IsJson'] },
      metricOptions: { 'opik.Contains': { substring: 'OK' } },
    });
    expect(run.results.map((r) => [`${r.provider}:${r.name}`, r.level, r.result, r.evaluationCost])).toEqual([
      ['opik:IsJson', 'Session', 1, 0],
      ['opik:Contains', 'Session', 1, 0],
      ['opik:IsJson', 'LLMCall', 1, 0],
    ]);
    expect(run.failed.map((f) => [f.name, f.error])).toEqual([['RegexMatch', 'MetricOptionError: opik:RegexMatch: set the metric\'s "pattern" option (a regular expression the output must match)']]);
    expect(() => engine.checkOptions({ 'opik:Contains': { substrng: 'x' } })).toThrow(/substrng/);
  });
});
