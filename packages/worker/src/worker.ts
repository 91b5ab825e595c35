/**
 * The queue consumer, put together from its steps (each in worker/): the broker connection and its reconnects
 * (broker.ts, declare-queues.ts), the consumer and its prefetch (consumer.ts), decoding a delivery (delivery.ts),
 * gathering batches (gather.ts) and the pause after a failed one (pause.ts), processing a batch and the
 * ack / retry / dead-letter decision (run-batch.ts, split-search.ts, decide.ts, moves.ts), readiness (readiness.ts)
 * and the graceful stop (shutdown.ts). The counting of outcomes and the log lines of a cut are outcome-tally.ts and
 * connection-log.ts.
 */
import { ConsumerStatus, type AsyncMessage } from 'rabbitmq-client';
import type { WorkerConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { WorkerMetrics } from './metrics.js';
import { OutcomeTally } from './outcome-tally.js';
import type { BatchProcessor } from './processor.js';
import { REPEAT_WINDOW_MS, RepeatLimit } from './repeat-limit.js';
import { queueNames, topology, type QueueNames } from './topology.js';
import { BrokerLink } from './worker/broker.js';
import { QueueConsumer } from './worker/consumer.js';
import type { WorkerContext } from './worker/context.js';
import { decodeDelivery } from './worker/delivery.js';
import { BatchGatherer } from './worker/gather.js';
import { MessageMover } from './worker/moves.js';
import { FailurePause } from './worker/pause.js';
import { isReady } from './worker/readiness.js';
import { BatchRunner } from './worker/run-batch.js';
import { stopGracefully } from './worker/shutdown.js';

export interface WorkerOptions {
  config: WorkerConfig;
  processor: BatchProcessor;
  logger?: Logger;
  metrics?: WorkerMetrics;
  /** Shown in the broker's connection list. */
  connectionName?: string;
  /**
   * A failure retrying cannot mend (the broker refused the credentials): called once, for the worker to stop (exit 2)
   * rather than retry forever with only /readyz to show it.
   */
  onFatal?: (reason: string) => void;
  /** A failure that repeats is logged once per window of this length, then summed up (default one minute). */
  logWindowMs?: number;
}

export class MceWorker {
  readonly metrics: WorkerMetrics;
  readonly queues: QueueNames;
  private readonly context: WorkerContext;
  private readonly broker: BrokerLink;
  private readonly consumer: QueueConsumer;
  private readonly gatherer: BatchGatherer;
  private readonly pause: FailurePause;
  private readonly mover: MessageMover;
  private closing: Promise<void> | undefined;

  constructor(options: WorkerOptions) {
    const { config } = options;
    const log = options.logger ?? createLogger();
    const logWindowMs = options.logWindowMs ?? REPEAT_WINDOW_MS;
    this.metrics = options.metrics ?? new WorkerMetrics();
    this.queues = queueNames(config.queue);
    this.context = {
      config,
      log,
      metrics: this.metrics,
      queues: this.queues,
      tally: new OutcomeTally(),
      repeats: new RepeatLimit(log, logWindowMs),
      stopping: { draining: false },
    };
    const declarations = topology(config.queue, config.queueArguments);
    this.broker = new BrokerLink(this.context, declarations, {
      connectionName: options.connectionName ?? 'mce-worker',
      logWindowMs,
      ...(options.onFatal ? { onFatal: options.onFatal } : {}),
    });
    this.pause = new FailurePause(config.retryDelayMs);
    this.mover = new MessageMover(this.context, this.broker.publisher);
    const runner = new BatchRunner(this.context, options.processor, this.pause, this.mover, () => this.gatherer.dispatch());
    this.gatherer = new BatchGatherer(config, this.pause, this.context.stopping, (batch) => runner.run(batch));
    this.consumer = new QueueConsumer(this.context, this.broker.connection, declarations.main, this.broker.connectionLog, (message) =>
      this.onMessage(message),
    );
  }

  /** Resolves the first time the consumer is consuming. */
  ready(): Promise<void> {
    return this.consumer.firstReady;
  }

  /** Connected, consuming, and able to move messages to the retry and dead-letter queues (what /readyz reports). */
  isReady(): boolean {
    return isReady({
      stopping: this.closing !== undefined,
      connected: this.broker.connected,
      consuming: this.consumer.consuming,
      queuesFailing: this.broker.queuesDeclared.failing,
      movesFailing: this.mover.failing,
      pauseLeftMs: this.pause.remainingMs(),
    });
  }

  /**
   * Graceful stop: stop consuming, process the messages already received (at once, without waiting for a full
   * batch), ack them, close. Messages that arrive after that are requeued for the next consumer.
   */
  close(): Promise<void> {
    this.closing ??= stopGracefully({ context: this.context, broker: this.broker, consumer: this.consumer, gatherer: this.gatherer, mover: this.mover });
    return this.closing;
  }

  /** Drops the connection at once; unacked messages go back to the queue. For a missed shutdown deadline. */
  destroy(): void {
    this.gatherer.stopTimer();
    this.broker.destroy();
  }

  private onMessage(message: AsyncMessage): Promise<ConsumerStatus> {
    // Sent before the broker saw our cancel (or buffered by the client until a handler slot freed): back to the
    // queue for the next consumer, instead of being processed with nobody left to ack it.
    if (this.context.stopping.draining) {
      this.context.log.debug({ messageId: message.messageId }, 'delivered while stopping: requeued for the next consumer');
      return Promise.resolve(ConsumerStatus.REQUEUE);
    }
    const decoded = decodeDelivery(message, this.context.tally.current());
    if (!decoded.ok) {
      this.context.log.error({ messageKey: decoded.delivery.key, error: decoded.error }, 'malformed message: dead-lettered');
      return this.mover.deadLetter(decoded.delivery, 'malformed-message', decoded.error);
    }
    const { delivery, sessionIds } = decoded;
    return new Promise((settle) => this.gatherer.add({ ...delivery, sessionIds, settle }));
  }
}
