import { MceError } from '../../errors.js';

/**
 * The engine's metric timeout (`EngineOptions.metricTimeoutMs`): the longest one LLM-judged computation may take —
 * one element's `compute`, or one `computeBatch` call. It is for metrics that wait on a service; deterministic and
 * aggregate metrics are CPU work whose time grows with the session and the machine's load, so they are never timed
 * (their results must not depend on either). A computation past it fails its elements with a MetricTimeoutError,
 * which is transient (a slow judge may answer a later attempt: the worker retries the message), and its
 * `ctx.signal` aborts (the judge abandons its request). One that overran synchronously fails too, once it returns:
 * JavaScript cannot interrupt it.
 */
export class MetricTimeoutError extends MceError {
  override readonly name = 'MetricTimeoutError';
  readonly kind = 'unavailable' as const;
  readonly transient = true;
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}

/**
 * `compute(ctx)` within `ms`: it gets a context whose `signal` aborts when the run's does or when the time is up, and
 * the result is a MetricTimeoutError when the time is up first (or was overrun before the computation returned).
 */
export function withTimeout<C extends { signal?: AbortSignal }, T>(ctx: C, ms: number, compute: (ctx: C) => T | Promise<T>): Promise<T> {
  const controller = new AbortController();
  const run = ctx.signal;
  const unfollow = run ? follow(run, controller) : undefined;
  const started = performance.now();
  return new Promise<T>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      unfollow?.();
    };
    const timer = setTimeout(() => {
      settle();
      const error = new MetricTimeoutError(ms);
      controller.abort(error);
      reject(error);
    }, ms);
    Promise.resolve()
      .then(() => compute({ ...ctx, signal: controller.signal }))
      .then(
        (value) => {
          settle();
          if (performance.now() - started > ms) reject(new MetricTimeoutError(ms));
          else resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
  });
}

/**
 * The computations in flight under each run signal. One listener per run signal aborts them all: a listener per
 * computation would pile up on a long-lived signal (and AbortSignal.any keeps an entry per computation for as long as
 * the run signal lives).
 */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

/** Aborts `controller` when `run` aborts, until the returned function is called. */
function follow(run: AbortSignal, controller: AbortController): () => void {
  if (run.aborted) {
    controller.abort(run.reason);
    return () => undefined;
  }
  let set = followers.get(run);
  if (!set) {
    const all = new Set<AbortController>();
    followers.set(run, all);
    run.addEventListener('abort', () => {
      for (const c of all) c.abort(run.reason);
      all.clear();
    }, { once: true });
    set = all;
  }
  set.add(controller);
  const current = set;
  return () => void current.delete(controller);
}
