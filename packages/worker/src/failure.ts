/**
 * Telling a store that cannot be reached from a batch it refuses. A failed batch of several messages is processed
 * again in parts to find the message at fault (see MceWorker), unless its error says the store is out of reach: then
 * every part would fail the same way, and the calls would only add load to a store that is down.
 */

// The test lives in core, beside the error kinds it decides (a connection failure is `unavailable`).
export { isConnectionError } from '@mce/core';
