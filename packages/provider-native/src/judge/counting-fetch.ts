/**
 * Counting every LLM call a third-party library makes, at the HTTP level: a `fetch` handed to the library's OpenAI
 * client (or `createOpenAI({ fetch })`) that runs each request through mce's judge limiter and records the usage the
 * endpoint reports. A library's own cost figure is never used; the calls are priced with mce's price table.
 */
import type OpenAI from 'openai';
import type { EvaluationUsage } from '@mce/core';
import type { Judge } from './judge.js';
import { sharedLimiter, type RequestLimiter } from './limiter.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { openaiModule } from './openai-module.js';
import { addCallUsage, type CallUsage, emptyCallUsage, type Pricing } from './usage-meter.js';

/** One HTTP call a library made. */
export interface MeteredCall {
  /** The model the request named (the response's when the request named none). */
  model: string;
  kind: 'chat' | 'embedding' | 'other';
  status: number;
  usage: CallUsage;
  /** False when a successful reply carried no `usage` (its tokens are counted as 0, not known). */
  usageReported: boolean;
}

/** The calls of one computation. */
export class CallMeter {
  readonly calls: MeteredCall[] = [];

  record(call: MeteredCall): void {
    this.calls.push(call);
  }

  /** Usage summed over every call. */
  total(): CallUsage {
    return this.calls.reduce((sum, c) => addCallUsage(sum, c.usage), emptyCallUsage());
  }

  /** Usage summed per model (a chat model and an embedding model are priced each at its own rate). */
  byModel(): Map<string, CallUsage> {
    const out = new Map<string, CallUsage>();
    for (const c of this.calls) out.set(c.model, addCallUsage(out.get(c.model) ?? emptyCallUsage(), c.usage));
    return out;
  }

  /** True when every successful reply reported its usage. */
  usageReported(): boolean {
    return this.calls.every((c) => c.usageReported);
  }

  /** The seed's evaluation fields: tokens summed, cost summed over the models at their prices; `model` is the judge's. */
  evaluation(model: string, pricing: Pricing): EvaluationUsage {
    const total = this.total();
    let cost = 0;
    for (const [name, usage] of this.byModel()) cost += pricing(name, usage);
    return { model, promptTokens: total.promptTokens, completionTokens: total.completionTokens, totalTokens: total.totalTokens, costUsd: cost };
  }
}

export interface CountingFetchOptions {
  /** The transport (default: mce's node:http fetch). */
  base?: typeof fetch;
  /** The limiter every request waits for (default: none). */
  limiter?: RequestLimiter;
  /** Aborts every request (the computation's signal: a metric timeout or a cancelled run stops the library's calls). */
  signal?: AbortSignal;
}

function withSignal(init: RequestInit | undefined, signal: AbortSignal | undefined): RequestInit | undefined {
  if (!signal) return init;
  return { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal };
}

function requestUrl(input: Parameters<typeof fetch>[0]): string {
  return input instanceof Request ? input.url : String(input);
}

function requestModel(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const model = (JSON.parse(body) as { model?: unknown }).model;
    return typeof model === 'string' ? model : undefined;
  } catch {
    return undefined;
  }
}

const count = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);

/** The usage of a reply body (chat completions and embeddings both report `usage`). */
function usageOf(text: string): { usage: CallUsage; reported: boolean; model?: string } {
  let reply: { usage?: Record<string, unknown> | null; model?: unknown };
  try {
    reply = JSON.parse(text) as typeof reply;
  } catch {
    return { usage: emptyCallUsage(), reported: false };
  }
  const model = typeof reply?.model === 'string' ? reply.model : undefined;
  const u = reply?.usage;
  if (!u || typeof u !== 'object') return { usage: emptyCallUsage(), reported: false, ...(model ? { model } : {}) };
  const promptTokens = count(u.prompt_tokens ?? u.input_tokens);
  const completionTokens = count(u.completion_tokens ?? u.output_tokens);
  const total = count(u.total_tokens) || promptTokens + completionTokens;
  const details = (u.prompt_tokens_details ?? {}) as { cached_tokens?: unknown };
  return {
    usage: { promptTokens, completionTokens, totalTokens: total, cachedPromptTokens: count(details.cached_tokens) },
    reported: true,
    ...(model ? { model } : {}),
  };
}

/**
 * A `fetch` that records each call's usage in `meter`. The reply is read whole before it is handed back (libraries
 * call the judge with non-streamed JSON requests), so the meter is complete when the library's call returns.
 */
export function countingFetch(meter: CallMeter, options: CountingFetchOptions = {}): typeof fetch {
  const base = options.base ?? nodeHttpFetch;
  const send = async (input: Parameters<typeof fetch>[0], requestInit?: RequestInit): Promise<Response> => {
    options.signal?.throwIfAborted();
    const init = withSignal(requestInit, options.signal);
    const response = await base(input, init);
    const text = await response.text();
    const url = requestUrl(input);
    const kind = /\/chat\/completions\/?$/.test(url) ? 'chat' : /\/embeddings\/?$/.test(url) ? 'embedding' : 'other';
    const { usage, reported, model } = usageOf(text);
    meter.record({
      model: requestModel(init?.body) ?? model ?? 'unknown',
      kind,
      status: response.status,
      usage,
      usageReported: reported || !response.ok,
    });
    const headers = new Headers(response.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    const empty = response.status === 204 || response.status === 304;
    return new Response(empty ? null : text, { status: response.status, statusText: response.statusText, headers });
  };
  const limiter = options.limiter;
  return limiter ? (input, init) => limiter.run(0, () => send(input, init)) : send;
}

/** The process-wide limiter of the judge's endpoint (the one its own calls wait for). */
export function judgeLimiter(judge: Judge): RequestLimiter {
  const { concurrency, requestsPerMinute, tokensPerMinute } = judge.config;
  return sharedLimiter(judge.endpoint, {
    concurrency,
    ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}),
    ...(tokensPerMinute !== undefined ? { tokensPerMinute } : {}),
  });
}

/**
 * An OpenAI client on the judge's endpoint and key whose every call is counted in `meter` and waits for the judge's
 * limiter; the client's own retries (the judge's MCE_JUDGE_MAX_RETRIES) each pass through the meter too.
 */
export function meteredOpenAI(judge: Judge, meter: CallMeter, options: { base?: typeof fetch; signal?: AbortSignal } = {}): OpenAI {
  return new (openaiModule().OpenAI)({
    apiKey: judge.config.apiKey ?? 'unset',
    baseURL: judge.endpoint,
    timeout: judge.config.timeoutMs,
    maxRetries: judge.config.maxRetries,
    fetch: countingFetch(meter, {
      limiter: judgeLimiter(judge),
      ...(options.base ? { base: options.base } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  });
}
