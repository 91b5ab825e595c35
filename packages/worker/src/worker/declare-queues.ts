/**
 * Declaring the main, retry and dead-letter queues on every (re)connection, so the retry and dead-letter queues
 * exist from the start, not only from the first failure, and come back if someone deleted them. While a declaration
 * fails (a queue of that name exists with other arguments) the worker is not ready and tries again every retry delay.
 */
import type { Connection } from 'rabbitmq-client';
import type { topology } from '../topology.js';
import type { WorkerContext } from './context.js';

export class QueueDeclarer {
  /** Set while the queues could not be declared. */
  failing = false;

  constructor(
    private readonly context: WorkerContext,
    private readonly connection: Connection,
    private readonly declarations: ReturnType<typeof topology>,
  ) {}

  async declare(): Promise<void> {
    if (this.context.stopping.draining) return;
    try {
      for (const declaration of [this.declarations.main, this.declarations.retry, this.declarations.dlq]) {
        await this.connection.queueDeclare(declaration);
      }
      if (this.failing) this.context.log.info('queues declared: ready');
      this.failing = false;
    } catch (error) {
      this.failing = true;
      const { retryDelayMs } = this.context.config;
      this.context.repeats.error('declare', { err: error }, `could not declare the queues: not ready; trying again every ${retryDelayMs} ms`);
      // Until someone fixes the conflicting queue: readiness then comes back without a reconnect.
      if (!this.context.stopping.draining) setTimeout(() => void this.declare(), retryDelayMs).unref();
    }
  }
}
