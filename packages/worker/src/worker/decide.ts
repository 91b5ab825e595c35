/**
 * What becomes of a message once its batch was stored, from the outcomes of its sessions: acked (every session
 * stored), dead-lettered (a session the store does not know: processing it again cannot help), or retried (stored
 * but incomplete: a service a metric needs, e.g. the judge, was unreachable; computed again after the retry delay,
 * overwriting). An unknown session wins over a transient failure.
 */
import type { BatchItemOutcome } from '../processor.js';

export type MessageDecision =
  | { action: 'ack' }
  | { action: 'dead-letter'; unknownSessions: string[] }
  | { action: 'retry'; sessionId: string; error: string };

export function decide(outcomes: readonly BatchItemOutcome[]): MessageDecision {
  const unknownSessions = outcomes.filter((item) => item.status === 'unknown-session').map((item) => item.sessionId);
  if (unknownSessions.length > 0) return { action: 'dead-letter', unknownSessions };
  const transient = outcomes.find((item) => item.status === 'transient-failure');
  if (transient) {
    return { action: 'retry', sessionId: transient.sessionId, error: transient.error ?? `session ${transient.sessionId}: transient metric failure` };
  }
  return { action: 'ack' };
}

/** The outcomes of each message of a batch: the batch's outcomes in order, as many as the message has sessions. */
export function outcomesPerMessage<T extends { sessionIds: readonly string[] }>(batch: readonly T[], outcomes: readonly BatchItemOutcome[]): BatchItemOutcome[][] {
  let offset = 0;
  return batch.map((entry) => outcomes.slice(offset, (offset += entry.sessionIds.length)));
}
