/**
 * A judged metric in `mce report` and `mce check`, the judge being the real client against the scripted
 * OpenAI-compatible server on loopback: the report shows the judge model, tokens and cost beside the score, and the
 * judge's total; check holds the score to its threshold.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scoreTokens } from '../../../../test-support/scripted-llm-server.mjs';
import { scriptedJudgeServer } from '../../../../test-support/judge-env.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const weather = fileURLToPath(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url));
const JUDGE_ENV = { OPENAI_API_KEY: 'test-key', LLM_MODEL_NAME: 'gpt-4o-mini' };

describe('a judged metric in mce report and mce check', () => {
  const judge = scriptedJudgeServer();

  it('shows the score with its judge model, tokens and cost, and holds it to a threshold', async () => {
    // 4 → 0.6, 5 → 0.3, 3 → 0.1: expected score 4.2, value (4.2 − 1) / 4 = 0.8.
    const step = { text: 'On topic and complete.\nScore: 4', logprobs: scoreTokens('On topic and complete.', { '4': 0.6, '5': 0.3, '3': 0.1 }), usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } };
    judge.server.setScript([], step);
    const ws = tempWorkspace();
    Object.assign(ws.env, JUDGE_ENV, { LLM_BASE_MODEL_URL_MCE: judge.server.url, MCE_METRIC_CACHE: 'none' });
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'metrics:\n  Session: [Duration, AnswerRelevancy]\nthresholds:\n  Session:\n    AnswerRelevancy: { min: 0.7 }\n');
    const file = join(ws.dir, 'report.html');
    expect((await runCli(['report', '--input', weather, '-o', file], ws)).code).toBe(0);
    const html = readFileSync(file, 'utf8');
    // gpt-4o-mini: 1000 × 1.5e-7 + 100 × 6e-7 = 0.00021 USD
    expect(html).toMatch(/<tr data-metric="AnswerRelevancy" data-level="Session" data-measures="weather-001"><th scope="row">AnswerRelevancy<\/th><td class="num" data-value="0\.8[0-9]*">0\.8<\/td><td>[^<]*<\/td><td>[^<]*<\/td><td>gpt-4o-mini: 1000 \+ 100 tokens, 0\.00021 USD<\/td><\/tr>/);
    expect(html).toContain('Judge: 1 judged result, 1100 tokens, 0.00021 USD (gpt-4o-mini).');
    const held = await runCli(['check', '--input', weather, '--no-store', '--json'], ws);
    expect(held.code).toBe(0);
    expect(held.json<{ cases: unknown[] }>().cases[0]).toMatchObject({ metric: 'AnswerRelevancy', status: 'pass', count: 1 });
    writeFileSync(join(ws.dir, 'mce_config.yaml'), 'thresholds:\n  Session:\n    AnswerRelevancy: { min: 0.9 }\n');
    const failed = await runCli(['check', '--input', weather, '--no-store', '--json'], ws);
    expect(failed.code).toBe(1);
    expect(failed.json<{ cases: Array<{ status: string; value: number }> }>().cases[0]!.status).toBe('fail');
    expect(failed.json<{ cases: Array<{ status: string; value: number }> }>().cases[0]!.value).toBeCloseTo(0.8, 10);
  });
});
