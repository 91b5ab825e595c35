/**
 * What each endpoint + model accepts about log-probabilities, learned at run time and kept for the process:
 * an endpoint that rejects them (or answers without them) is not asked again; one that caps `top_logprobs`
 * is asked for at most its cap.
 */
import { openaiModule } from './openai-module.js';

interface Support {
  logprobs: boolean;
  topLogprobsCap?: number;
}

const support = new Map<string, Support>();

const key = (endpoint: string, model: string) => `${endpoint}\u0000${model}`;

export function logprobSupport(endpoint: string, model: string): Readonly<Support> {
  return support.get(key(endpoint, model)) ?? { logprobs: true };
}

export function dropLogprobs(endpoint: string, model: string): void {
  support.set(key(endpoint, model), { logprobs: false });
}

export function capTopLogprobs(endpoint: string, model: string, cap: number): void {
  const current = logprobSupport(endpoint, model);
  support.set(key(endpoint, model), { ...current, topLogprobsCap: Math.min(cap, current.topLogprobsCap ?? cap) });
}

/** Forget what was learned (tests). */
export function resetLogprobSupport(): void {
  support.clear();
}

export type LogprobRejection = { kind: 'unsupported' } | { kind: 'cap'; cap: number };

/**
 * Whether a request error is the endpoint refusing log-probabilities: a 4xx whose message names them.
 * A message naming `top_logprobs` with a bound (≤ 5, "between 0 and 5", "maximum of 5") is a cap, not a refusal.
 */
export function logprobRejection(error: unknown, requestedTop: number): LogprobRejection | undefined {
  if (!(error instanceof openaiModule().APIError) || error.status === undefined || error.status < 400 || error.status >= 500) {
    return undefined;
  }
  if (error.status === 429 || error.status === 408) return undefined;
  const message = `${error.message} ${JSON.stringify(error.error ?? '')} ${error.param ?? ''}`;
  if (!/log_?probs?/i.test(message)) return undefined;
  if (/top_logprobs/i.test(message)) {
    const bounds = [...message.matchAll(/(?:<=|≤|at most|maximum(?: of| is)?|less than or equal to|between \d+ and)\s*(\d+)/gi)]
      .map((m) => Number(m[1]))
      .filter((n) => Number.isInteger(n) && n >= 1 && n < requestedTop);
    if (bounds.length > 0) return { kind: 'cap', cap: Math.min(...bounds) };
  }
  return { kind: 'unsupported' };
}
