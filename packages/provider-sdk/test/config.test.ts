/** `sdk_metrics` entries checked where they enter: every problem at its path, with the entry's name. */
import { describe, expect, it } from 'vitest';
import { SdkConfigError, configure, defineSdkMetrics, sdkProvider } from '@mce/provider-sdk';

function problemsOf(entries: unknown): Array<[string, string]> {
  try {
    defineSdkMetrics(entries);
  } catch (error) {
    if (!(error instanceof SdkConfigError)) throw error;
    expect(error.kind).toBe('bad-input');
    return error.problems.map((p) => [p.path.join('.'), p.message]);
  }
  throw new Error('expected an SdkConfigError');
}

describe('sdk_metrics entries', () => {
  it('builds a provider named sdk with the declared metrics and their metadata', () => {
    const provider = configure({
      sdk_metrics: [
        { name: 'Calls', kind: 'deterministic', levels: ['Session'], expression: 'count(LLMCall)', unit: 'calls' },
        { name: 'Helpful', kind: 'judged', levels: ['Session'], evaluation_steps: ['Read the answer.'], inputs: ['final_response'] },
      ],
    });
    expect(provider.name).toBe('sdk');
    expect(provider.metrics().map((m) => [m.metadata.provider, m.metadata.name, m.metadata.nature, m.metadata.unit, m.metadata.valueRange])).toEqual([
      ['sdk', 'Calls', 'deterministic', 'calls', 'number'],
      ['sdk', 'Helpful', 'llm-judged', 'dimensionless', '0.0-1.0'],
    ]);
    expect(configure({}).metrics()).toEqual([]);
  });

  it('names each bad field, every problem at once', () => {
    expect(
      problemsOf([
        { name: 'ok', kind: 'deterministic', levels: ['Session'], expression: '1' },
        { name: 'Bad Name', kind: 'deterministic', levels: ['Session'], expression: '1' },
        { name: 'J', kind: 'judged', levels: ['Session', 'Session'], criteria: 'c', inputs: ['messages'], rubric: { 6: 'great' }, threshold: 2 },
        { name: 'E', kind: 'deterministic', levels: ['LLMCall'], expression: 'sum(LLMCall.total_tokens) / total_tokens +' },
        { name: 'ok', kind: 'deterministic', levels: ['Session'], expression: '2' },
        'Duration',
      ]),
    ).toEqual([
      ['sdk_metrics.1.name', 'Bad Name: must be letters, digits and _, starting with a letter (it is written sdk:<name>)'],
      ['sdk_metrics.2.levels', 'J: lists a level twice'],
      ['sdk_metrics.2.rubric.6', 'J: rubric keys are the scores 1 to 5, not 6'],
      ['sdk_metrics.2.threshold', 'J: Too big: expected number to be <=1'],
      ['sdk_metrics.3.expression', 'E: column 43: expected a value, found the end of the expression'],
      ['sdk_metrics.4.name', 'ok is declared at sdk_metrics.0 already'],
      ['sdk_metrics.5', 'kind must be judged or deterministic'],
    ]);
    expect(problemsOf({ name: 'x' })).toEqual([['sdk_metrics', 'must be a list of metric definitions']]);
  });

  it('throws with a readable message when used from code', () => {
    expect(() => sdkProvider([{ name: 'A', kind: 'deterministic', levels: ['Session'], expression: 'nope(1)' }])).toThrow(
      'invalid sdk_metrics:\n  sdk_metrics.0.expression: A: column 1: unknown function "nope" (functions: count, share, sum, mean, min, max)',
    );
  });
});
