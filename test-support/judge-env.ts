/**
 * The default judge pointed at a scripted OpenAI-compatible server on loopback. The judge is built from the
 * environment on its first use, so the variables are stubbed and the one already built is dropped.
 */
import { vi } from 'vitest';
import { setDefaultJudge } from '@mce/provider-native';

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
