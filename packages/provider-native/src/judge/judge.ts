/**
 * The LLM judge: one OpenAI-compatible client with the process-wide limits, retries that count every usage
 * returned, log-probability scoring with per-endpoint fallback, and sample averaging.
 *
 * Two calls for metric authors: `complete()` (one chat completion, raw) and `score()` (rubric → value in [0, 1]).
 */
import type OpenAI from 'openai';
import { openaiModule } from './openai-module.js';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { redactUrl, type EvaluationUsage } from '@mce/core';
import { tokenizer } from './tokenizer.js';
import { type JudgeConfig, judgeTemperature } from './config.js';
import { JudgeNotConfiguredError, JudgeReplyError } from './errors.js';
import { clip } from '../text.js';
import { sharedLimiter, type RequestLimiter } from './limiter.js';
import { capTopLogprobs, dropLogprobs, logprobRejection, logprobSupport } from './logprob-support.js';
import { backoffMs, isRetryable, sleep } from './retry.js';
import { logprobScore, parseScore, reasoningOf, scoreToValue, type TokenLogprob } from './score-parsing.js';
import { defaultPriceRefresher } from '../prices/committed-prices.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { pricingFrom } from './pricing.js';
import { addCallUsage, type CallUsage, emptyCallUsage, type Pricing, toEvaluationUsage, withUsage } from './usage-meter.js';

export const OPENAI_DEFAULT_ENDPOINT = 'https://api.openai.com/v1';

export interface JudgeMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  messages: JudgeMessage[];
  /** Default: the configured temperature (0.0 unless MCE_JUDGE_TEMPERATURE). */
  temperature?: number;
  maxTokens?: number;
  /** Ask for token log-probabilities (default: the config's `logprobs`); dropped where the endpoint rejects them. */
  logprobs?: boolean;
  signal?: AbortSignal;
}

export interface Completion {
  text: string;
  /** Token log-probabilities of the reply, when asked for and returned. */
  logprobs?: TokenLogprob[];
  /** Usage summed over every HTTP call made for this completion (a retried call that returned usage included). */
  usage: CallUsage;
  /** HTTP calls made (retries and the call re-made without log-probabilities included). */
  calls: number;
  /** The model name the endpoint reported. */
  responseModel: string;
  /** False when the endpoint's reply carried no `usage`: its tokens (and so its cost) are counted as 0, not known. */
  usageReported: boolean;
}

export type Scoring = 'logprob' | 'sampled' | 'raw';

export interface ScoreRequest {
  /** Metric name, for error messages. */
  metric?: string;
  /** The written 1–5 rubric; it becomes the system message with the reply format. */
  rubric: string;
  /** What is judged: the user message (conversation, tool call, answer …). */
  prompt: string;
  /** Default: the config's `samples` (MCE_JUDGE_SAMPLES). */
  samples?: number;
  /** Default: MCE_JUDGE_TEMPERATURE, else 0.0 for one sample and 0.7 for several. */
  temperature?: number;
  signal?: AbortSignal;
}

export interface SampleScore {
  score: number;
  scoring: 'logprob' | 'raw';
  /** Probability per digit at the score position (logprob scoring). */
  distribution?: Record<string, number>;
}

export interface JudgeScore {
  /** (score − 1) / 4, in [0, 1]. */
  value: number;
  /** The score on the 1–5 scale (expected or averaged, so not always an integer). */
  score: number;
  /** `logprob`: expectation from one call's log-probabilities; `sampled`: mean of several calls; `raw`: the integer. */
  scoring: Scoring;
  /** The judge's reasoning (of the first sample). */
  reasoning: string;
  usage: EvaluationUsage;
  samples: SampleScore[];
  /** False when a reply carried no `usage` (an endpoint that does not report it): `usage` then undercounts. */
  usageReported: boolean;
}

/** The system message of a scored judgement: the rubric and the reply format parsed by `score()`. */
export function scoringSystemPrompt(rubric: string): string {
  return [
    'You are an impartial evaluator of a multi-agent system. Judge only what is shown; do not assume anything else.',
    '',
    rubric.trim(),
    '',
    'Reply with a short reasoning (a few sentences), then, on the last line, exactly `Score: N` where N is an integer',
    'from 1 to 5 chosen with the rubric above.',
  ].join('\n');
}

export interface JudgeOptions {
  /** USD cost of a call's usage; default: the shared price table (gpt-4o's price for unknown models). */
  pricing?: Pricing;
  /**
   * Awaited (started with the first call) before a score is priced: the run-time price refresh, bounded by its
   * timeout. Default with the default pricing: the shared table's refresher; none with a custom `pricing`.
   */
  pricesReady?: () => Promise<void>;
  /** HTTP transport of the OpenAI client (default: a lean node:http fetch; pass `fetch` for the global one). */
  fetch?: typeof fetch;
  /** Jitter source (tests). */
  random?: () => number;
}

export class Judge {
  readonly endpoint: string;
  private readonly pricing: Pricing;
  private readonly pricesReady: (() => Promise<void>) | undefined;
  private client: OpenAI | undefined;
  private limiter: RequestLimiter | undefined;

  constructor(
    readonly config: JudgeConfig,
    private readonly options: JudgeOptions = {},
  ) {
    this.endpoint = (config.baseURL ?? OPENAI_DEFAULT_ENDPOINT).replace(/\/+$/, '');
    this.pricing = options.pricing ?? pricingFrom();
    this.pricesReady = options.pricesReady ?? (options.pricing ? undefined : () => defaultPriceRefresher().fresh());
  }

  /** The judge model name, or undefined when none is configured. */
  get model(): string | undefined {
    return this.config.model;
  }

  /** Throws the "which variables to set" error when no judge model is configured. */
  requireModel(metric?: string): string {
    if (!this.config.model) throw new JudgeNotConfiguredError(metric);
    return this.config.model;
  }

  private readonly derived = new Map<string, Judge>();

  /** This judge with another model (a per-metric `model` option): same endpoint, limits, pricing; one per model. */
  withModel(model: string): Judge {
    if (model === this.config.model) return this;
    let judge = this.derived.get(model);
    if (!judge) {
      judge = new Judge({ ...this.config, model }, this.options);
      this.derived.set(model, judge);
    }
    return judge;
  }

  /**
   * Prices a call usage with this judge's pricing, once the live price refresh has had its chance (bounded by its
   * timeout), as `score` does: calls made outside `score` must not be priced from the older table.
   */
  async evaluationUsage(usage: CallUsage): Promise<EvaluationUsage> {
    await this.pricesReady?.();
    return toEvaluationUsage(this.requireModel(), usage, this.pricing);
  }

  /**
   * The evaluation fields of calls a library made on this judge's endpoint (counted by a CallMeter): each model
   * priced at its own rate with this judge's pricing, after the live price refresh has had its chance.
   */
  async meteredUsage(meter: { evaluation(model: string, pricing: Pricing): EvaluationUsage }): Promise<EvaluationUsage> {
    await this.pricesReady?.();
    return meter.evaluation(this.requireModel(), this.pricing);
  }

  private openai(): OpenAI {
    this.client ??= new (openaiModule().OpenAI)({
      apiKey: this.config.apiKey ?? 'unset',
      baseURL: this.endpoint,
      timeout: this.config.timeoutMs,
      maxRetries: 0, // retried here, so a retried call's usage is counted and Retry-After is honoured
      fetch: this.options.fetch ?? nodeHttpFetch,
    });
    return this.client;
  }

  private sharedLimiter(): RequestLimiter {
    const { concurrency, requestsPerMinute, tokensPerMinute } = this.config;
    this.limiter ??= sharedLimiter(this.endpoint, {
      concurrency,
      ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}),
      ...(tokensPerMinute !== undefined ? { tokensPerMinute } : {}),
    });
    return this.limiter;
  }

  /** One chat completion, with retries and the log-probability fallback. */
  async complete(request: CompletionRequest): Promise<Completion> {
    const model = this.requireModel();
    const maxTokens = request.maxTokens ?? this.config.maxTokens;
    const estimate =
      this.config.tokensPerMinute === undefined
        ? 0
        : request.messages.reduce((n, m) => n + tokenizer().countTokens(m.content) + 4, 0) + maxTokens;
    let usage = emptyCallUsage();
    let calls = 0;
    let retries = 0;
    for (;;) {
      const support = logprobSupport(this.endpoint, model);
      const wantLogprobs = (request.logprobs ?? this.config.logprobs) && support.logprobs;
      const top = Math.min(this.config.topLogprobs, support.topLogprobsCap ?? Infinity);
      const body: ChatCompletionCreateParamsNonStreaming = {
        model,
        messages: request.messages,
        temperature: request.temperature ?? judgeTemperature(1, this.config.temperature),
        max_tokens: maxTokens,
        ...(wantLogprobs ? { logprobs: true, top_logprobs: top } : {}),
      };
      let reply: ChatCompletion;
      try {
        calls++;
        reply = await this.sharedLimiter().run(estimate, async (settle) => {
          const result = await this.openai().chat.completions.create(body, {
            ...(request.signal ? { signal: request.signal } : {}),
          });
          if (result.usage) settle(result.usage.total_tokens);
          return result;
        });
      } catch (error) {
        const rejection = wantLogprobs ? logprobRejection(error, top) : undefined;
        if (rejection?.kind === 'cap') {
          capTopLogprobs(this.endpoint, model, rejection.cap);
          continue;
        }
        if (rejection?.kind === 'unsupported') {
          dropLogprobs(this.endpoint, model);
          continue;
        }
        if (!isRetryable(error) || retries >= this.config.maxRetries || request.signal?.aborted) {
          throw describe(error, this.endpoint, calls, isRetryable(error) && !request.signal?.aborted, this.config.apiKey);
        }
        const random = this.options.random;
        await sleep(backoffMs(retries, error, { ...this.config, ...(random ? { random } : {}) }), request.signal);
        retries++;
        continue;
      }
      if (!isChatCompletion(reply)) {
        // An HTML page or other text with status 200: a base URL that is not an OpenAI-compatible API (a proxy's
        // login page, a web app's root). Not a judgement, and asking again will not make it one.
        const text = withoutKey(typeof reply === 'string' ? reply : JSON.stringify(reply) ?? String(reply), this.config.apiKey);
        throw new JudgeReplyError(
          `the endpoint ${redactUrl(this.endpoint)} did not answer with a chat completion (got ${clip(text.trim(), 120) || 'an empty reply'}); is it an OpenAI-compatible API?`,
          text,
        );
      }
      usage = addCallUsage(usage, callUsageOf(reply));
      const choice = reply.choices[0];
      // An endpoint may echo the request's key: never into a reasoning, an error or a log.
      const text = withoutKey(choice?.message?.content ?? '', this.config.apiKey);
      const tokens = choice?.logprobs?.content ?? undefined;
      if (wantLogprobs && (!tokens || tokens.length === 0) && text.length > 0) {
        // The endpoint ignored the option: do not ask again; this reply is still a valid (raw) judgement.
        dropLogprobs(this.endpoint, model);
      }
      return {
        text,
        ...(tokens && tokens.length > 0 ? { logprobs: tokens } : {}),
        usage,
        calls,
        responseModel: reply.model ?? model,
        usageReported: reply.usage != null,
      };
    }
  }

  /**
   * Judges `prompt` against a 1–5 `rubric`: value (score − 1)/4, continuous through log-probabilities or sample
   * averaging. Throws JudgeReplyError when a reply has no `Score: N` (the metric fails; never stored as 0).
   */
  async score(request: ScoreRequest): Promise<JudgeScore> {
    const model = this.requireModel(request.metric);
    const samples = request.samples ?? this.config.samples;
    const temperature = request.temperature ?? judgeTemperature(samples, this.config.temperature);
    const pricesReady = this.pricesReady?.(); // runs alongside the judge calls
    const messages: JudgeMessage[] = [
      { role: 'system', content: scoringSystemPrompt(request.rubric) },
      { role: 'user', content: request.prompt },
    ];
    const completions = await Promise.all(
      Array.from({ length: samples }, () =>
        this.complete({ messages, temperature, ...(request.signal ? { signal: request.signal } : {}) }),
      ),
    );
    const usage = completions.reduce((sum, c) => addCallUsage(sum, c.usage), emptyCallUsage());
    await pricesReady;
    let scores: SampleScore[];
    try {
      scores = completions.map((completion) => sampleScore(completion, request.metric));
    } catch (error) {
      throw withUsage(error, toEvaluationUsage(model, usage, this.pricing)); // the calls were made: a retry counts them
    }
    const score = scores.reduce((sum, s) => sum + s.score, 0) / scores.length;
    const first = scores[0];
    return {
      value: scoreToValue(score),
      score,
      scoring: samples > 1 ? 'sampled' : (first?.scoring ?? 'raw'),
      reasoning: reasoningOf(completions[0]?.text ?? ''),
      usage: toEvaluationUsage(model, usage, this.pricing),
      samples: scores,
      usageReported: completions.every((c) => c.usageReported),
    };
  }
}

function sampleScore(completion: Completion, metric?: string): SampleScore {
  const parsed = parseScore(completion.text);
  if (parsed === undefined) {
    const excerpt = completion.text.trim().slice(-200) || '(empty reply)';
    throw new JudgeReplyError(
      `${metric ? `${metric}: ` : ''}the judge reply has no "Score: N" line with N in 1–5; reply ends: ${JSON.stringify(excerpt)}`,
      completion.text,
    );
  }
  const fromLogprobs = completion.logprobs ? logprobScore(completion.logprobs) : undefined;
  if (!fromLogprobs) return { score: parsed, scoring: 'raw' };
  return { score: fromLogprobs.expected, scoring: 'logprob', distribution: fromLogprobs.distribution };
}

function callUsageOf(reply: ChatCompletion): CallUsage {
  const u = reply.usage;
  if (!u) return emptyCallUsage();
  // Endpoints that report only some counts: the missing one is what the total leaves, else 0 (a valid judgement
  // must not fail on its bookkeeping).
  const count = (n: unknown): number | undefined => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined);
  const total = count(u.total_tokens);
  const reportedPrompt = count(u.prompt_tokens);
  const completion = count(u.completion_tokens) ?? (total !== undefined && reportedPrompt !== undefined ? Math.max(0, total - reportedPrompt) : 0);
  const prompt = reportedPrompt ?? (total !== undefined ? Math.max(0, total - completion) : 0);
  return {
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: total ?? prompt + completion,
    cachedPromptTokens: count(u.prompt_tokens_details?.cached_tokens) ?? 0,
  };
}

/**
 * The error a judge call ends with. `transient`: the endpoint was unreachable, overloaded or failing (connection
 * error, timeout, 408/409/429/5xx) through every retry — a later attempt may succeed (see core's isTransientError);
 * a refused request (400, 401, 404, …) is not.
 */
/** `text` with the judge's API key written `***` (an endpoint's error or reply may echo it back). */
function withoutKey(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 8 ? text.split(apiKey).join('***') : text;
}

function describe(error: unknown, endpoint: string, calls: number, transient: boolean, apiKey: string | undefined): Error {
  const reason = withoutKey(error instanceof Error ? error.message : String(error), apiKey);
  // The cause is kept for its status and headers, its message (which may hold the key) replaced.
  const cause = error instanceof Error ? Object.assign(error, { message: withoutKey(error.message, apiKey) }) : error;
  const wrapped = new Error(`judge request to ${redactUrl(endpoint)} failed after ${calls} call(s): ${reason}`, { cause });
  wrapped.name = 'JudgeRequestError';
  return transient ? Object.assign(wrapped, { transient: true }) : wrapped;
}

/** Whether an endpoint's 200 reply is a chat completion at all (an HTML page arrives as a string). */
function isChatCompletion(reply: unknown): reply is ChatCompletion {
  return typeof reply === 'object' && reply !== null && Array.isArray((reply as { choices?: unknown }).choices);
}
