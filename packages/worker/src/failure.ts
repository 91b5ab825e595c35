/**
 * Telling a store that cannot be reached from a batch it refuses, from the error's kind (core's errorKind), in this
 * one place. A failed batch of several messages is processed again in parts to find the message at fault (see
 * MceWorker), unless its error says a service is unavailable (a store out of reach or locked by another writer):
 * then every part would fail the same way, and the calls would only add load to a store that is down.
 */
import { errorKind } from '@mce/core';

// The connection test lives in core, beside the error kinds it decides.
export { isConnectionError } from '@mce/core';

/** The batch failed because a service it needs is unavailable (retry it whole, later), not because of a message. */
export function isOutage(error: unknown): boolean {
  return errorKind(error) === 'unavailable';
}
