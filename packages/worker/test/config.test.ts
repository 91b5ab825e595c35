import { describe, expect, it } from 'vitest';
import { WorkerConfigError, workerConfigFrom } from '@mce/worker';

describe('workerConfigFrom', () => {
  it('fills every default from an empty section and environment', () => {
    expect(workerConfigFrom({}, {})).toEqual({
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      queue: 'new_session_to_mce',
      prefetch: 100,
      batchSize: 50,
      batchMaxWaitMs: 200,
      maxAttempts: 5,
      retryDelayMs: 5000,
      shutdownDeadlineMs: 30000,
      healthPort: 9464,
      reconnectMaxDelayMs: 30000,
      queueArguments: {},
    });
  });

  it('takes the main queue arguments from the file, and refuses values RabbitMQ arguments cannot be', () => {
    const section = { queue_arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': 5 } };
    expect(workerConfigFrom(section, {}).queueArguments).toEqual({ 'x-queue-type': 'quorum', 'x-delivery-limit': 5 });
    expect(() => workerConfigFrom({ queue_arguments: { 'x-thing': [1] } }, {})).toThrow(
      'queue_arguments must map argument names to strings, numbers or booleans',
    );
  });

  it('reads the snake_case section; prefetch defaults to twice the batch size', () => {
    const config = workerConfigFrom(
      { amqp_url: 'amqps://u:p@mq:5671/vh', queue: 'q1', batch_size: 20, batch_max_wait_ms: 0, max_attempts: 2, health_port: 0 },
      {},
    );
    expect(config).toMatchObject({ amqpUrl: 'amqps://u:p@mq:5671/vh', queue: 'q1', batchSize: 20, prefetch: 40, batchMaxWaitMs: 0, maxAttempts: 2, healthPort: 0 });
  });

  it('lets the environment override the file: MCE_AMQP_URL before RABBITMQ_URL, MCE_WORKER_<KEY> for the rest', () => {
    const section = { amqp_url: 'amqp://file:5672', batch_size: 10, queue: 'from_file' };
    expect(workerConfigFrom(section, { RABBITMQ_URL: 'amqp://rabbit:5672' }).amqpUrl).toBe('amqp://rabbit:5672');
    const config = workerConfigFrom(section, {
      MCE_AMQP_URL: 'amqp://mce:5672',
      RABBITMQ_URL: 'amqp://rabbit:5672',
      MCE_WORKER_BATCH_SIZE: '25',
      MCE_WORKER_QUEUE: 'from_env',
      MCE_WORKER_PREFETCH: '',
    });
    expect(config).toMatchObject({ amqpUrl: 'amqp://mce:5672', batchSize: 25, prefetch: 50, queue: 'from_env' });
  });

  it('rejects a prefetch below the batch size and ill-typed values, listing every problem', () => {
    expect(() => workerConfigFrom({ batch_size: 50, prefetch: 10 }, {})).toThrow('prefetch (10) must be ≥ batch_size (50)');
    try {
      workerConfigFrom({ amqp_url: 'http://x', batch_size: 0, retry_delay_ms: 1.5 }, { MCE_WORKER_MAX_ATTEMPTS: 'many' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(WorkerConfigError);
      expect((error as WorkerConfigError).problems).toEqual([
        'amqp_url must be an amqp:// or amqps:// URL',
        'batch_size must be an integer ≥ 1 (got 0)',
        'max_attempts must be an integer ≥ 1 (got "many")',
        'retry_delay_ms must be an integer ≥ 0 (got 1.5)',
      ]);
    }
  });

  it('names the variable of a broker URL the driver cannot read (it said only "URI malformed"), its password hidden', () => {
    const problems = (env: Record<string, string>) => {
      try {
        workerConfigFrom({}, env);
      } catch (error) {
        return (error as WorkerConfigError).problems;
      }
      return [];
    };
    expect(problems({ MCE_AMQP_URL: 'amqp://gu%est:secret@127.0.0.1:5672' })).toEqual(['MCE_AMQP_URL amqp://gu%est:***@127.0.0.1:5672: the user name is not percent-encoded (a % must be written %25)']);
    expect(problems({ RABBITMQ_URL: 'amqp://guest:50%off@127.0.0.1:5672' })).toEqual(['RABBITMQ_URL amqp://guest:***@127.0.0.1:5672: the password is not percent-encoded (a % must be written %25)']);
    expect(problems({ RABBITMQ_URL: 'ftp://x' })).toEqual(['RABBITMQ_URL must be an amqp:// or amqps:// URL']);
    expect(problems({ MCE_AMQP_URL: 'amqp://guest:50%25off@127.0.0.1:5672' })).toEqual([]);
  });
});
