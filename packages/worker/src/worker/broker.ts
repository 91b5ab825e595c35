/**
 * The broker connection and its reconnects: the AMQP client reconnects with exponential backoff (up to
 * `reconnect_max_delay_ms`); each connection re-declares the queues. A refused user name or password is fatal (the
 * worker stops rather than retry forever). The publisher of the retry and dead-letter copies lives on it.
 */
import { redactUrl } from '@mce/core';
import { Connection, type Publisher } from 'rabbitmq-client';
import { ConnectionLog } from '../connection-log.js';
import type { topology } from '../topology.js';
import type { WorkerContext } from './context.js';
import { QueueDeclarer } from './declare-queues.js';

export interface BrokerOptions {
  /** Shown in the broker's connection list. */
  connectionName: string;
  /** A failure retrying cannot mend (the broker refused the credentials): called once. */
  onFatal?: (reason: string) => void;
  logWindowMs: number;
}

export class BrokerLink {
  readonly connection: Connection;
  readonly publisher: Publisher;
  readonly queuesDeclared: QueueDeclarer;
  readonly connectionLog: ConnectionLog;

  constructor(context: WorkerContext, declarations: ReturnType<typeof topology>, options: BrokerOptions) {
    const { config, log, metrics, tally, queues } = context;
    this.connectionLog = new ConnectionLog(log, options.logWindowMs);
    this.connection = new Connection({
      url: config.amqpUrl,
      connectionName: options.connectionName,
      retryLow: Math.max(1, Math.min(1000, config.reconnectMaxDelayMs)),
      retryHigh: Math.max(1, config.reconnectMaxDelayMs),
    });
    this.queuesDeclared = new QueueDeclarer(context, this.connection, declarations);
    this.connection.on('error', (error: unknown) => {
      if ((error as { code?: string }).code === 'ACCESS_REFUSED') {
        const reason = `the broker at ${redactUrl(config.amqpUrl)} refused the user name or password (MCE_AMQP_URL / RABBITMQ_URL / amqp_url)`;
        log.error({ err: error }, `${reason}: not retrying`);
        options.onFatal?.(reason);
        return;
      }
      tally.lost();
      this.connectionLog.connectionError(error);
    });
    this.connection.on('connection', () => {
      tally.connected();
      metrics.connections.inc();
      this.connectionLog.connected({ queue: queues.main });
      void this.queuesDeclared.declare();
    });
    this.publisher = this.connection.createPublisher({
      confirm: true,
      maxAttempts: 3,
      queues: [declarations.retry, declarations.dlq],
    });
  }

  /** Connected and unblocked. */
  get connected(): boolean {
    return this.connection.ready;
  }

  /** Drops the connection at once; unacked messages go back to the queue. */
  destroy(): void {
    this.connection.unsafeDestroy();
  }
}
