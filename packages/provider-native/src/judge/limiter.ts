/**
 * The process-wide limits on judge requests: at most N in flight, and optionally at most R requests and T tokens
 * per rolling minute. One limiter per endpoint, shared by every metric and judge instance in the process.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { sleep } from './retry.js';

export interface LimiterOptions {
  concurrency: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  /** Length of the rate window (default one minute; shorter in tests). */
  windowMs?: number;
}

const WINDOW_MS = 60_000;

export class RequestLimiter {
  private readonly limit: LimitFunction;
  /** Requests started in the last minute: start time and tokens charged. */
  private readonly window: Array<{ at: number; tokens: number }> = [];
  private rateGate: Promise<void> = Promise.resolve();

  constructor(readonly options: LimiterOptions) {
    this.limit = pLimit(options.concurrency);
  }

  /**
   * Runs `task` once a concurrency slot and the rate limits allow. `tokens` is the estimate charged against the
   * tokens-per-minute budget; `settle(actual)` returned by the task corrects it once the usage is known.
   */
  run<T>(tokens: number, task: (settle: (actualTokens: number) => void) => Promise<T>): Promise<T> {
    return this.limit(async () => {
      const entry = await this.admit(tokens);
      return task((actual) => {
        if (entry) entry.tokens = actual;
      });
    });
  }

  private async admit(tokens: number): Promise<{ at: number; tokens: number } | undefined> {
    const { requestsPerMinute: rpm, tokensPerMinute: tpm, windowMs = WINDOW_MS } = this.options;
    if (rpm === undefined && tpm === undefined) return undefined;
    // Admission is serialised so that concurrent callers do not all pass the same free slot.
    const previous = this.rateGate;
    let release!: () => void;
    this.rateGate = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      for (;;) {
        const now = Date.now();
        while (this.window.length > 0 && (this.window[0]?.at ?? 0) <= now - windowMs) this.window.shift();
        const used = this.window.reduce((sum, e) => sum + e.tokens, 0);
        const requestsOk = rpm === undefined || this.window.length < rpm;
        // A single request larger than the whole budget passes alone rather than waiting forever.
        const tokensOk = tpm === undefined || used + tokens <= tpm || this.window.length === 0;
        if (requestsOk && tokensOk) {
          const entry = { at: now, tokens };
          this.window.push(entry);
          return entry;
        }
        const oldest = this.window[0]?.at ?? now;
        await sleep(Math.max(1, oldest + windowMs - now));
      }
    } finally {
      release();
    }
  }
}

const limiters = new Map<string, RequestLimiter>();

/**
 * The limiter of an endpoint for this process. The first caller's options win; later judges on the same endpoint
 * share it (a different concurrency for the same endpoint would defeat a process-wide limit).
 */
export function sharedLimiter(endpoint: string, options: LimiterOptions): RequestLimiter {
  let limiter = limiters.get(endpoint);
  if (!limiter) {
    limiter = new RequestLimiter(options);
    limiters.set(endpoint, limiter);
  }
  return limiter;
}
