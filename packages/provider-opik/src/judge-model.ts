/**
 * What every Opik LLM judge is built with: a Vercel AI SDK chat model on mce's judge (`createOpenAI({ baseURL,
 * apiKey, fetch })`), its `fetch` the counting one, and `trackMetric: false` so that nothing goes to an Opik server.
 */
import type { LibraryCall } from '@mce/provider-native';
import { opikLibrary } from './library.js';
import { OPIK_LIBRARY } from './names.js';

export type OpikMetric = { score(input: Record<string, unknown>): Promise<{ value: number; reason?: string }> };

/** The AI SDK chat model on mce's judge, every request through the counting fetch. */
function judgeModel(call: LibraryCall): unknown {
  const { aiSdk } = opikLibrary();
  const provider = aiSdk.createOpenAI({ baseURL: call.judge.endpoint, apiKey: call.judge.config.apiKey ?? 'unset', fetch: call.fetch });
  // Chat completions (what Python Opik's LiteLLM calls), not the Responses API the provider's default would use.
  return provider.chat(call.model);
}

/** The constructor options every Opik LLM judge takes, on mce's judge. */
export function judgeOptions(call: LibraryCall): Record<string, unknown> {
  return {
    model: judgeModel(call),
    trackMetric: false, // nothing goes to an Opik server
    temperature: call.judge.config.temperature ?? 0,
    maxTokens: call.judge.config.maxTokens,
  };
}

/** The opik package's exported class `name`; an error when this version has none. */
export function opikClass<M>(name: string): new (...args: unknown[]) => M {
  const found = (opikLibrary().opik as unknown as Record<string, unknown>)[name];
  if (typeof found !== 'function') throw new Error(`${OPIK_LIBRARY} has no ${name}`);
  return found as new (...args: unknown[]) => M;
}
