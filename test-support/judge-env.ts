/**
 * The default judge pointed at a scripted OpenAI-compatible server on loopback. The judge is built from the
 * environment on its first use, so the variables are stubbed and the one already built is dropped.
 */
import { afterAll, beforeAll, vi } from 'vitest';
import { Judge, judgeConfigFromEnv, setDefaultJudge, type CallUsage } from '@mce/provider-native';
import { startScriptedLLMServer, type ScriptedLLMServer } from './scripted-llm-server.mjs';

/** `env`: more judge variables (MCE_JUDGE_MAX_RETRIES, …). Undo with `resetJudgeEnv`. */
export function pointJudgeAt(url: string, env: Readonly<Record<string, string>> = {}): void {
  vi.stubEnv('OPENAI_API_KEY', 'test-key');
  vi.stubEnv('LLM_MODEL_NAME', 'gpt-4o-mini');
  vi.stubEnv('LLM_BASE_MODEL_URL_MCE', url);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  setDefaultJudge(undefined);
}

export function resetJudgeEnv(): void {
  setDefaultJudge(undefined);
  vi.unstubAllEnvs();
}

/**
 * In a describe block: a scripted server started before its tests with the default judge pointed at it, both undone
 * after them. `judge.server` is the server (set once the block's tests run).
 */
export function scriptedJudgeServer(): { readonly server: ScriptedLLMServer } {
  const judge = {} as { server: ScriptedLLMServer };
  beforeAll(async () => {
    judge.server = await startScriptedLLMServer();
    pointJudgeAt(judge.server.url);
  });
  afterAll(async () => {
    resetJudgeEnv();
    await judge.server.close();
  });
  return judge;
}

/** The test price: $1 per million prompt tokens, $2 per million completion tokens. */
export const TEST_PRICING = (_model: string, u: CallUsage): number => u.promptTokens * 1e-6 + u.completionTokens * 2e-6;

/** A judge of `model` on the scripted server at `url`, priced at TEST_PRICING; `env`: more judge variables. */
export function judgeOn(url: string, model: string, env: Readonly<Record<string, string>> = {}): Judge {
  return new Judge(judgeConfigFromEnv({ LLM_MODEL_NAME: model, OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: url, ...env }), { pricing: TEST_PRICING });
}
