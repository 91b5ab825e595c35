/** One broker cut: one warning when lost, one line when back, the failed acks of the batches in flight summed up. */
import { describe, expect, it } from 'vitest';
import { ConnectionLog } from '../src/connection-log.js';
import { capturedLog, WARN } from './support/log-lines.js';

const ackFailed = () => Object.assign(new Error('failed to ack/nack message; channel is closed'), { code: 'CH_CLOSE' });

describe('ConnectionLog', () => {
  it('logs a cut with 500 failed acks and repeated connection errors in a bounded number of lines', () => {
    const { lines, logger } = capturedLog();
    const log = new ConnectionLog(logger, 60_000);
    log.connected({ queue: 'q' });
    log.connectionError(new Error('CONNECTION_FORCED'));
    for (let i = 0; i < 20; i++) log.connectionError(new Error('ECONNREFUSED'));
    for (let i = 0; i < 500; i++) log.consumerError(ackFailed());
    log.connected({ queue: 'q' });
    log.close();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [30, 'connected to the broker'],
      [WARN, 'lost the connection to the broker: reconnecting; unacked messages will be delivered again'],
      [30, 'an ack could not be sent on the closed channel: the message will be delivered again'],
      [30, expect.stringMatching(/^reconnected to the broker after \d+ ms$/)],
      [30, 'an ack could not be sent on the closed channel: the message will be delivered again (499 more like it since)'],
    ]);
  });

  it('says a broker never reached cannot be connected to, once', () => {
    const { lines, logger } = capturedLog();
    const log = new ConnectionLog(logger, 60_000);
    for (let i = 0; i < 10; i++) log.connectionError(new Error('ECONNREFUSED'));
    log.close();
    expect(lines.map((line) => line.msg)).toEqual(['cannot connect to the broker: retrying']);
  });

  it('reminds once per window while the broker stays down', async () => {
    const { lines, logger } = capturedLog();
    const log = new ConnectionLog(logger, 20);
    log.connected({});
    log.connectionError(new Error('CONNECTION_FORCED'));
    await new Promise((resolve) => setTimeout(resolve, 70));
    log.close();
    const reminders = lines.filter((line) => line.msg.startsWith('still no connection to the broker after'));
    expect(reminders.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBe(2 + reminders.length);
  });
});
