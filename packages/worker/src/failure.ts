/**
 * Telling a store that cannot be reached from a batch it refuses. A failed batch of several messages is processed
 * again in parts to find the message at fault (see MceWorker), unless its error says the store is out of reach: then
 * every part would fail the same way, and the calls would only add load to a store that is down.
 */

/** Node's error codes for a peer that cannot be reached, refuses the connection, or dropped it. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a PostgreSQL server that cannot take work: class 08 (connection exception), class 53 (insufficient
 * resources: disk full, out of memory, too many connections), 57P01–57P03 (shutting down, crashed, not yet accepting
 * connections).
 */
const SQLSTATE = /^(08...|53...|57P0[1-3])$/;

/**
 * Whether `error` (or an error it wraps, as `cause` or in an AggregateError) says the store or the network is out of
 * reach, rather than something about the batch.
 */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isConnectionError(inner, depth + 1))) return true;
  return isConnectionError(cause, depth + 1);
}
