/**
 * Which judge failures are worth another attempt, and how long to wait: exponential backoff with full jitter,
 * or the server's `Retry-After` / `retry-after-ms` when it sends one.
 */
import { openaiModule } from './openai-module.js';

export interface BackoffOptions {
  retryBaseMs: number;
  retryMaxMs: number;
  random?: () => number;
}

/** 408, 409, 429, 5xx, timeouts and connection failures are transient; other errors are not. */
export function isRetryable(error: unknown): boolean {
  const { APIConnectionError, APIError } = openaiModule();
  if (error instanceof APIConnectionError) return true; // includes APIConnectionTimeoutError
  if (error instanceof APIError) {
    const status = error.status;
    return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
  }
  return false;
}

/** The wait the server asked for, in ms, from `retry-after-ms` or `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  if (!(error instanceof openaiModule().APIError) || !error.headers) return undefined;
  const ms = Number(error.headers.get('retry-after-ms'));
  if (error.headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = error.headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Wait before retry number `attempt` (0-based): Retry-After when given, else base·2^attempt with full jitter. */
export function backoffMs(attempt: number, error: unknown, options: BackoffOptions): number {
  const asked = retryAfterMs(error);
  if (asked !== undefined) return Math.min(asked, options.retryMaxMs);
  const ceiling = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** attempt);
  return Math.round(ceiling * (options.random ?? Math.random)());
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
