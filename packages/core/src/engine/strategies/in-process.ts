import type { Metric, MetricContext, MetricOutcome } from '../../contracts/metric.js';
import type { Element } from '../../ontology/types.js';
import type { ElementOutcome } from '../record-builder.js';
import { toError } from '../record-builder.js';
import type { TaskJob } from './strategy.js';
import { withTimeout } from './timeout.js';

export type Limiter = <T>(fn: () => Promise<T> | T) => Promise<T>;

/** No limit: CPU-bound work gains nothing from a concurrency limit, and each pass through one costs promises. */
const direct: Limiter = async (fn) => fn();

/**
 * Computes a job on this thread. Deterministic and aggregate metrics are called directly (a synchronous outcome is
 * used as is: no promise per element); LLM-judged calls (per element, or per batch) go through `limit`, the async
 * pool's concurrency limit, and with `timeoutMs` each has that long (timeout.ts), counted from when it starts, not
 * while it waits for a free slot.
 */
export async function runInProcess(job: TaskJob, limit: Limiter, timeoutMs?: number): Promise<ElementOutcome[]> {
  const metric = job.entry.metric as Metric;
  const { elements, ctx } = job;
  const throttled = metric.metadata.nature === 'llm-judged';
  if (metric.computeBatch) return runBatch(metric, elements, ctx, throttled ? limit : direct, throttled ? timeoutMs : undefined);
  const outcomes: ElementOutcome[] = new Array<ElementOutcome>(elements.length);
  let pending: Array<Promise<void>> | undefined;
  const judged = (element: Element): Promise<MetricOutcome> =>
    timeoutMs === undefined
      ? Promise.resolve(metric.compute(element, ctx))
      : withTimeout(ctx, timeoutMs, (timed) => metric.compute(element, timed));
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i] as Element;
    if (throttled) {
      (pending ??= []).push(
        limit(() => judged(element)).then(
          (o) => void (outcomes[i] = o),
          (e: unknown) => void (outcomes[i] = toError(e)),
        ),
      );
      continue;
    }
    try {
      const outcome = metric.compute(element, ctx);
      if (isPromise(outcome)) {
        (pending ??= []).push(
          outcome.then(
            (o) => void (outcomes[i] = o),
            (e: unknown) => void (outcomes[i] = toError(e)),
          ),
        );
      } else {
        outcomes[i] = outcome;
      }
    } catch (error) {
      outcomes[i] = toError(error);
    }
  }
  if (pending) await Promise.all(pending);
  return outcomes;
}

async function runBatch(
  metric: Metric,
  elements: readonly Element[],
  ctx: MetricContext,
  limit: Limiter,
  timeoutMs: number | undefined,
): Promise<ElementOutcome[]> {
  const batch = metric.computeBatch as NonNullable<Metric['computeBatch']>;
  const call = (): Promise<Array<MetricOutcome | Error>> =>
    timeoutMs === undefined
      ? batch.call(metric, elements as Element[], ctx)
      : withTimeout(ctx, timeoutMs, (timed) => batch.call(metric, elements as Element[], timed));
  try {
    const outcomes = await limit(call);
    if (!Array.isArray(outcomes) || outcomes.length !== elements.length) {
      const got = Array.isArray(outcomes) ? `${outcomes.length} outcomes` : 'no array';
      return elements.map(() => new Error(`computeBatch returned ${got} for ${elements.length} elements`));
    }
    return outcomes as ElementOutcome[];
  } catch (error) {
    const failure = toError(error);
    return elements.map(() => failure);
  }
}

function isPromise(value: MetricOutcome | Promise<MetricOutcome>): value is Promise<MetricOutcome> {
  return typeof (value as Promise<MetricOutcome>)?.then === 'function';
}
