/**
 * What every Opik LLM judge is built with: a Vercel AI SDK chat model on mce's judge (`createOpenAI({ baseURL,
 * apiKey, fetch })`), its `fetch` the counting one, and `trackMetric: false` so that nothing goes to an Opik server.
 */
import type { LibraryCall } from '@mce/provider-native';
import { opikLibrary } from './library.js';
import { OPIK_LIBRARY } from './names.js';

export type OpikMetric = { score(input: Record<string, unknown>): Promise<{ value: number; reason?: string }> };

/**
 * `fetch` sending the request without `logprobs` / `top_logprobs`. Opik 2.0.40's G-Eval asks for log-probabilities
 * but reads them in a shape this AI SDK does not return: when the endpoint sends them, its parsing fails and it asks
 * the same again without them (one more paid call for the same text-parsed score). Not asking saves that call.
 */
function withoutLogprobs(send: typeof fetch): typeof fetch {
  return (input, init) => {
    if (typeof init?.body !== 'string') return send(input, init);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(init.body) as Record<string, unknown>;
    } catch {
      return send(input, init);
    }
    if (!('logprobs' in body) && !('top_logprobs' in body)) return send(input, init);
    const { logprobs: _asked, top_logprobs: _top, ...rest } = body;
    return send(input, { ...init, body: JSON.stringify(rest) });
  };
}

/** The AI SDK chat model on mce's judge, every request through the counting fetch. */
function judgeModel(call: LibraryCall, logprobs: boolean): unknown {
  const { aiSdk } = opikLibrary();
  const send = logprobs ? call.fetch : withoutLogprobs(call.fetch);
  const provider = aiSdk.createOpenAI({ baseURL: call.judge.endpoint, apiKey: call.judge.config.apiKey ?? 'unset', fetch: send });
  // Chat completions (what Python Opik's LiteLLM calls), not the Responses API the provider's default would use.
  return provider.chat(call.model);
}

/** The constructor options every Opik LLM judge takes, on mce's judge; `logprobs: false` strips them from its requests. */
export function judgeOptions(call: LibraryCall, { logprobs = true }: { logprobs?: boolean } = {}): Record<string, unknown> {
  return {
    model: judgeModel(call, logprobs),
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
