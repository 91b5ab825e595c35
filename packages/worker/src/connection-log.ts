/**
 * The log lines of the broker connection's life: one warning when it is lost, one line when it is back, and in
 * between one reminder per window while it stays down. What a cut brings with it is counted, not logged line by
 * line: the acks of the batches in flight fail on the closed channel (one consumer error each: ~500 warnings per cut
 * with a large prefetch); the first is logged, the others are summed up in one line at the end of the window.
 */
import type { Logger } from 'pino';
import { REPEAT_WINDOW_MS, RepeatLimit } from './repeat-limit.js';

/** The AMQP client's wording for an ack or nack on a channel that closed (rabbitmq-client's Consumer). */
const ACK_FAILED = /^failed to ack\/nack message/;

export class ConnectionLog {
  private everConnected = false;
  private lostAt: number | undefined;
  private reminder: NodeJS.Timeout | undefined;
  private readonly repeats: RepeatLimit;

  constructor(
    private readonly log: Logger,
    private readonly windowMs = REPEAT_WINDOW_MS,
  ) {
    this.repeats = new RepeatLimit(log, windowMs);
  }

  connected(fields: object): void {
    this.stopReminder();
    if (this.lostAt === undefined) {
      this.log.info(fields, 'connected to the broker');
    } else {
      const downMs = Date.now() - this.lostAt;
      this.log.info({ ...fields, downMs }, `${this.everConnected ? 'reconnected' : 'connected'} to the broker after ${downMs} ms`);
    }
    this.everConnected = true;
    this.lostAt = undefined;
  }

  /** A connection error: the connection was lost, or (before the first connection) could not be made. */
  connectionError(error: unknown): void {
    if (this.lostAt !== undefined) {
      this.log.debug({ err: error }, 'broker connection error');
      return;
    }
    this.lostAt = Date.now();
    this.log.warn(
      { err: error },
      this.everConnected
        ? 'lost the connection to the broker: reconnecting; unacked messages will be delivered again'
        : 'cannot connect to the broker: retrying',
    );
    this.reminder = setInterval(() => this.remind(), this.windowMs);
    this.reminder.unref();
  }

  consumerError(error: unknown): void {
    const message = (error as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string' && ACK_FAILED.test(message)) {
      this.repeats.info('ack', { err: error }, 'an ack could not be sent on the closed channel: the message will be delivered again');
      return;
    }
    this.repeats.warn('consumer', { err: error }, 'consumer error');
  }

  close(): void {
    this.stopReminder();
    this.repeats.flush();
  }

  private remind(): void {
    if (this.lostAt === undefined) return;
    this.log.warn({ downMs: Date.now() - this.lostAt }, `still no connection to the broker after ${Date.now() - this.lostAt} ms: retrying`);
  }

  private stopReminder(): void {
    clearInterval(this.reminder);
    this.reminder = undefined;
  }
}
