/**
 * Judge configuration from the environment (seed 000 + issue 5). Every MCE_JUDGE_* variable is read here and
 * nowhere else, so the CLI, the worker and tests build a judge the same way.
 */

export interface JudgeConfig {
  /** `LLM_MODEL_NAME`; without it LLM-judged metrics fail with a message naming the variables to set. */
  model?: string;
  /** `OPENAI_API_KEY`. */
  apiKey?: string;
  /** `LLM_BASE_MODEL_URL_MCE`: any OpenAI-compatible endpoint (default: OpenAI's). */
  baseURL?: string;
  /** `MCE_JUDGE_TIMEOUT_SECONDS` (default 60): per HTTP request. */
  timeoutMs: number;
  /** `MCE_JUDGE_MAX_RETRIES` (default 4): retries on 429, 5xx, timeouts and network errors. */
  maxRetries: number;
  /** `MCE_JUDGE_RETRY_BASE_MS` (default 500): first backoff; doubles each retry, full jitter. */
  retryBaseMs: number;
  /** `MCE_JUDGE_RETRY_MAX_MS` (default 30000): longest wait between two attempts (Retry-After included). */
  retryMaxMs: number;
  /** `MCE_JUDGE_CONCURRENCY` (default 8): judge requests in flight at once, process-wide per endpoint. */
  concurrency: number;
  /** `MCE_JUDGE_REQUESTS_PER_MINUTE`: optional request-rate limit, process-wide per endpoint. */
  requestsPerMinute?: number;
  /** `MCE_JUDGE_TOKENS_PER_MINUTE`: optional token-rate limit (prompt estimate + max completion), per endpoint. */
  tokensPerMinute?: number;
  /** `MCE_JUDGE_LOGPROBS` (default on): ask for token log-probabilities to score continuously. */
  logprobs: boolean;
  /** `MCE_JUDGE_TOP_LOGPROBS` (default 20): alternatives asked per token; lowered when an endpoint caps it. */
  topLogprobs: number;
  /** `MCE_JUDGE_SAMPLES` (default 1): judge calls averaged per computation. */
  samples: number;
  /** `MCE_JUDGE_TEMPERATURE` (default 0.0 for one sample, 0.7 for several). */
  temperature?: number;
  /** `MCE_JUDGE_MAX_TOKENS` (default 600): completion budget of one judge reply. */
  maxTokens: number;
  /** `MCE_JUDGE_TRANSCRIPT_TOKENS` (default 12000): token budget of the conversation shown to the judge. */
  transcriptTokens: number;
}

export const JUDGE_ENV_HINT = 'set LLM_MODEL_NAME and OPENAI_API_KEY (and LLM_BASE_MODEL_URL_MCE for a non-OpenAI endpoint)';

export const DEFAULT_JUDGE_CONFIG: Omit<JudgeConfig, 'model' | 'apiKey' | 'baseURL'> = {
  timeoutMs: 60_000,
  maxRetries: 4,
  retryBaseMs: 500,
  retryMaxMs: 30_000,
  concurrency: 8,
  logprobs: true,
  topLogprobs: 20,
  samples: 1,
  maxTokens: 600,
  transcriptTokens: 12_000,
};

export type Env = Readonly<Record<string, string | undefined>>;

/** The variable's trimmed value; undefined when unset or blank. */
export function envText(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

/** The variable as a number (undefined when unset); a value that is not one, or below `min`, throws naming it. */
export function envNumber(env: Env, name: string, opts: { min: number; integer?: boolean }): number | undefined {
  const raw = envText(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < opts.min || (opts.integer && !Number.isInteger(value))) {
    throw new Error(`${name}=${raw}: expected ${opts.integer ? 'an integer' : 'a number'} >= ${opts.min}`);
  }
  return value;
}

/** The variable as a boolean (undefined when unset); a value that is not one throws naming it. */
export function envFlag(env: Env, name: string): boolean | undefined {
  const raw = envText(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name}=${raw}: expected true or false`);
}

/** The judge configuration from environment variables; invalid values throw naming the variable. */
export function judgeConfigFromEnv(env: Env = process.env): JudgeConfig {
  const d = DEFAULT_JUDGE_CONFIG;
  const config: JudgeConfig = {
    timeoutMs: (envNumber(env, 'MCE_JUDGE_TIMEOUT_SECONDS', { min: 0.001 }) ?? d.timeoutMs / 1000) * 1000,
    maxRetries: envNumber(env, 'MCE_JUDGE_MAX_RETRIES', { min: 0, integer: true }) ?? d.maxRetries,
    retryBaseMs: envNumber(env, 'MCE_JUDGE_RETRY_BASE_MS', { min: 0 }) ?? d.retryBaseMs,
    retryMaxMs: envNumber(env, 'MCE_JUDGE_RETRY_MAX_MS', { min: 0 }) ?? d.retryMaxMs,
    concurrency: envNumber(env, 'MCE_JUDGE_CONCURRENCY', { min: 1, integer: true }) ?? d.concurrency,
    logprobs: envFlag(env, 'MCE_JUDGE_LOGPROBS') ?? d.logprobs,
    topLogprobs: envNumber(env, 'MCE_JUDGE_TOP_LOGPROBS', { min: 1, integer: true }) ?? d.topLogprobs,
    samples: envNumber(env, 'MCE_JUDGE_SAMPLES', { min: 1, integer: true }) ?? d.samples,
    maxTokens: envNumber(env, 'MCE_JUDGE_MAX_TOKENS', { min: 1, integer: true }) ?? d.maxTokens,
    transcriptTokens: envNumber(env, 'MCE_JUDGE_TRANSCRIPT_TOKENS', { min: 100, integer: true }) ?? d.transcriptTokens,
  };
  const optional = {
    model: envText(env, 'LLM_MODEL_NAME'),
    apiKey: envText(env, 'OPENAI_API_KEY'),
    baseURL: envText(env, 'LLM_BASE_MODEL_URL_MCE'),
    requestsPerMinute: envNumber(env, 'MCE_JUDGE_REQUESTS_PER_MINUTE', { min: 1 }),
    tokensPerMinute: envNumber(env, 'MCE_JUDGE_TOKENS_PER_MINUTE', { min: 1 }),
    temperature: envNumber(env, 'MCE_JUDGE_TEMPERATURE', { min: 0 }),
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(config, { [key]: value });
  }
  return config;
}

/** The sampling temperature: the configured one, else 0.0 for one sample and 0.7 for several. */
export function judgeTemperature(samples: number, configured?: number): number {
  return configured ?? (samples > 1 ? 0.7 : 0);
}
