/** The real judge client against a scripted OpenAI-compatible server on loopback (gpt-4o, no retries, flat price). */
import { Judge, judgeConfigFromEnv } from '@mce/provider-native';
import { startScriptedLLMServer, type ScriptedLLMServer } from '../../../../../test-support/scripted-llm-server.mjs';

export async function startScriptedJudge(): Promise<{ server: ScriptedLLMServer; judge: Judge }> {
  const server = await startScriptedLLMServer();
  const judge = new Judge(
    judgeConfigFromEnv({ LLM_MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'k', LLM_BASE_MODEL_URL_MCE: server.url, MCE_JUDGE_MAX_RETRIES: '0' }),
    { pricing: () => 0.001 },
  );
  return { server, judge };
}
