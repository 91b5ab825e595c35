/**
 * The engine's metric timeout (`EngineOptions.metricTimeoutMs`): the longest one computation may take — one element's
 * `compute`, or one `computeBatch` call. A computation past it fails its elements with a MetricTimeoutError, which is
 * transient (a slow judge may answer a later attempt: the worker retries the message) and aborts the computation's
 * `ctx.signal`. JavaScript cannot interrupt a synchronous computation on its own thread: on the async pool such a
 * metric is only reported once it returns; on worker threads and processes the pool stops the worker (pool.ts).
 */
export class MetricTimeoutError extends Error {
  override readonly name = 'MetricTimeoutError';
  readonly transient = true;
  constructor(readonly timeoutMs: number, detail = '') {
    super(`timed out after ${timeoutMs} ms${detail}`);
  }
}

/** `promise`, or a MetricTimeoutError once `ms` have passed (then `onTimeout` runs, e.g. to abort the computation). */
export function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout?: (error: MetricTimeoutError) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new MetricTimeoutError(ms);
      onTimeout?.(error);
      reject(error);
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * A context for one timed computation: its `signal` aborts when the run's does or when the computation times out.
 * `expire` is what `withDeadline` calls on timeout.
 */
export function timedContext<C extends { signal?: AbortSignal }>(ctx: C): { ctx: C; expire: (error: MetricTimeoutError) => void } {
  const controller = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, controller.signal]) : controller.signal;
  return { ctx: { ...ctx, signal }, expire: (error) => controller.abort(error) };
}
