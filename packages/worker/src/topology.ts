/**
 * The queues the worker uses. The main queue is a durable queue with the configured arguments (none by default), so
 * that it matches the queue the pipeline declared itself; failed messages wait in `<queue>.retry` until their per-message expiration (the retry
 * delay) dead-letters them back to the main queue through the default exchange; messages that cannot be processed
 * end in `<queue>.dlq`. The delay travels with each message, not in the queue's arguments, so changing it does not
 * make the declaration of an existing retry queue fail.
 */
export interface QueueNames {
  main: string;
  retry: string;
  dlq: string;
}

export function queueNames(queue: string): QueueNames {
  return { main: queue, retry: `${queue}.retry`, dlq: `${queue}.dlq` };
}

export interface QueueDeclaration {
  queue: string;
  durable: true;
  arguments?: Record<string, unknown>;
}

export function topology(
  queue: string,
  mainArguments: Readonly<Record<string, unknown>> = {},
): { main: QueueDeclaration; retry: QueueDeclaration; dlq: QueueDeclaration } {
  const names = queueNames(queue);
  return {
    main: { queue: names.main, durable: true, ...(Object.keys(mainArguments).length > 0 ? { arguments: { ...mainArguments } } : {}) },
    retry: {
      queue: names.retry,
      durable: true,
      arguments: {
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': names.main,
      },
    },
    dlq: { queue: names.dlq, durable: true },
  };
}

/** Headers the worker sets on messages it sends to the retry queue or the dead-letter queue. */
export const HEADER = {
  reason: 'x-mce-reason',
  attempts: 'x-mce-attempts',
  lastError: 'x-mce-last-error',
  unknownSessions: 'x-mce-unknown-sessions',
} as const;

export type DeadLetterReason = 'malformed-message' | 'unknown-session' | 'max-attempts-exceeded';
