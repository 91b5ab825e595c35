import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Judge, judgeConfigFromEnv, resetLogprobSupport, type JudgeConfig } from '@mce/provider-native';
import { scoreTokens, startScriptedLLMServer, type ScriptedLLMServer } from '../../../../test-support/scripted-llm-server.mjs';

let server: ScriptedLLMServer;
beforeAll(async () => {
  server = await startScriptedLLMServer();
});
afterAll(() => server.close());
beforeEach(() => resetLogprobSupport());

const flatPrice = () => 0;
function judge(env: Record<string, string> = {}): Judge {
  const config: JudgeConfig = judgeConfigFromEnv({
    LLM_MODEL_NAME: 'gpt-4o',
    OPENAI_API_KEY: 'test-key',
    LLM_BASE_MODEL_URL_MCE: server.url,
    MCE_JUDGE_RETRY_BASE_MS: '1',
    ...env,
  });
  return new Judge(config, { pricing: flatPrice });
}
const rubric = '5: perfect\n1: useless';

describe('judge score from log-probabilities', () => {
  it('is the expectation over the digit probabilities: 4:0.6, 5:0.3, 3:0.1 → 4.2 → 0.8', async () => {
    server.setScript([{ text: 'Clear answer.\nScore: 4', logprobs: scoreTokens('Clear answer.', { ' 4': 0.6, ' 5': 0.3, ' 3': 0.1 }) }]);
    const result = await judge().score({ rubric, prompt: 'Q?' });
    expect(result.score).toBeCloseTo(4.2, 12);
    expect(result.value).toBeCloseTo(0.8, 12);
    expect(result.scoring).toBe('logprob');
    expect(result.reasoning).toBe('Clear answer.');
    const body = server.requests[0]?.body;
    expect(body?.logprobs).toBe(true);
    expect(body?.top_logprobs).toBe(20);
    expect(body?.temperature).toBe(0);
  });
});
