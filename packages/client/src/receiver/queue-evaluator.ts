/**
 * Queue mode: a complete session's id is published to the worker queue (the `worker:` section), for `mce worker`
 * processes to compute and store. The RabbitMQ side is `@mce/worker`'s, handed in (this package does not depend on it).
 */
import type { SessionEvaluator } from './receiver.js';

/** What queue mode needs of `@mce/worker`. */
export interface QueuePublisher {
  workerConfigFrom(section: Record<string, unknown>, env: NodeJS.ProcessEnv): { amqpUrl: string; queue: string; queueArguments: Record<string, string | number | boolean> };
  enqueueSessions(amqpUrl: string, queue: string, ids: readonly string[], options?: { queueArguments?: Record<string, string | number | boolean>; runKey?: string }): Promise<unknown>;
}

/** Publishes each batch of complete sessions (confirmed by the broker before it resolves). */
export function queueEvaluator(worker: QueuePublisher, workerSection: Record<string, unknown>, env: NodeJS.ProcessEnv): SessionEvaluator {
  const { amqpUrl, queue, queueArguments } = worker.workerConfigFrom(workerSection, env);
  return {
    async evaluate(ids) {
      // One run per session, whichever time it is published: re-evaluated, its results are overwritten (as in-process).
      await worker.enqueueSessions(amqpUrl, queue, ids, { queueArguments, runKey: 'mce-receiver' });
    },
  };
}
