/**
 * The consumer of the main queue: `prefetch` deliveries at most, each a pending handler of the AMQP client that
 * settles when its batch is done, so the client acks or requeues on the channel the message came from, re-creates
 * channel and consumer after a lost connection, and on close() stops consuming and waits for the pending handlers.
 */
import { type AsyncMessage, type Connection, type Consumer, type ConsumerStatus } from 'rabbitmq-client';
import type { ConnectionLog } from '../connection-log.js';
import type { QueueDeclaration } from '../topology.js';
import type { WorkerContext } from './context.js';

export class QueueConsumer {
  readonly consumer: Consumer;
  /** Resolves the first time the consumer is consuming. */
  readonly firstReady: Promise<void>;
  private consumedBefore = false;

  constructor(
    context: WorkerContext,
    connection: Connection,
    main: QueueDeclaration,
    connectionLog: ConnectionLog,
    handler: (message: AsyncMessage) => Promise<ConsumerStatus>,
  ) {
    const { config, log, queues } = context;
    this.consumer = connection.createConsumer(
      {
        queue: main.queue,
        queueOptions: { durable: true, ...(main.arguments ? { arguments: main.arguments } : {}) },
        qos: { prefetchCount: config.prefetch },
        concurrency: config.prefetch,
        requeue: true,
      },
      handler,
    );
    this.consumer.on('error', (error: unknown) => connectionLog.consumerError(error));
    this.consumer.on('ready', () => {
      // Once at info: after a reconnect the reconnect line says it.
      log[this.consumedBefore ? 'debug' : 'info']({ queue: queues.main, prefetch: config.prefetch }, 'consuming');
      this.consumedBefore = true;
    });
    this.firstReady = new Promise((resolve) => this.consumer.once('ready', () => resolve()));
  }

  /** Subscribed (a consumer tag is set). */
  get consuming(): boolean {
    return this.consumer.consumerTag !== '';
  }

  close(): Promise<void> {
    return this.consumer.close();
  }
}
