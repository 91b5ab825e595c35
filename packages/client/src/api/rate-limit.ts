/**
 * A token bucket per caller: `perSecond` requests a second on average, bursts of up to one second's worth. Buckets
 * full again are forgotten, so a flood of distinct callers holds no memory after it.
 */
export class RateLimiter {
  readonly #perSecond: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;

  constructor(perSecond: number, now: () => number = () => performance.now()) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond)) throw new RangeError(`requests per second must be a positive number (got ${perSecond})`);
    this.#perSecond = perSecond;
    this.#now = now;
  }

  /** Takes one request for `who`: 0 when allowed, else the milliseconds until the next one would be. */
  take(who: string): number {
    const now = this.#now();
    const capacity = Math.max(1, this.#perSecond);
    const bucket = this.#buckets.get(who) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.#perSecond);
    bucket.at = now;
    if (this.#buckets.size > 10_000) this.#forgetFull(now);
    if (bucket.tokens < 1) {
      this.#buckets.set(who, bucket);
      return ((1 - bucket.tokens) / this.#perSecond) * 1000;
    }
    bucket.tokens -= 1;
    this.#buckets.set(who, bucket);
    return 0;
  }

  #forgetFull(now: number): void {
    const capacity = Math.max(1, this.#perSecond);
    for (const [who, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.#perSecond >= capacity) this.#buckets.delete(who);
    }
  }
}
