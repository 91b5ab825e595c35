/** `mce enqueue` against a broker that is not there: a clear error, no unhandled 'error' event, no password shown. */
import { describe, expect, it } from 'vitest';
import { BrokerUnreachableError, enqueueSessions, withoutCredentials } from '@mce/worker';

describe('enqueueSessions without a broker', () => {
  it('rejects with the reason once the connect timeout passes', async () => {
    const started = performance.now();
    const failure = await enqueueSessions('amqp://mce:s3cret@127.0.0.1:1/', 'q', ['a'], { connectTimeoutMs: 400 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BrokerUnreachableError);
    expect((failure as Error).message).toBe('cannot reach the broker at amqp://mce:***@127.0.0.1:1/: connect ECONNREFUSED 127.0.0.1:1');
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('keeps user names and hides passwords in URLs it prints', () => {
    expect(withoutCredentials('amqps://u:p@broker:5671/vh')).toBe('amqps://u:***@broker:5671/vh');
    expect(withoutCredentials('amqp://broker')).toBe('amqp://broker');
    expect(withoutCredentials('not a url')).toBe('not a url');
  });
});
