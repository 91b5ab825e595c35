/**
 * The one error base: every error mce throws on purpose says what kind of failure it is, and each surface derives
 * its answer from the kind in one place — the CLI its exit code, the REST API its status, the worker whether a
 * message is retried or dead-lettered.
 */

/**
 * - `bad-input`: the caller's input is wrong (a file, a field, an option, a configuration); retrying the same will fail.
 * - `not-found`: what was named does not exist (a session id, a store file).
 * - `unavailable`: a service needed is out of reach or busy (a store, a broker, a judge endpoint); a retry may succeed.
 * - `conflict`: the request clashes with the state (a name taken, something being shut down).
 * - `internal`: a fault of mce itself or of something it did not expect.
 */
export type ErrorKind = 'bad-input' | 'not-found' | 'unavailable' | 'conflict' | 'internal';

export const ERROR_KINDS: readonly ErrorKind[] = ['bad-input', 'not-found', 'unavailable', 'conflict', 'internal'];

/** Subclasses say their kind as a field (`override readonly kind = 'bad-input'`) or a getter when it depends on the case. */
export abstract class MceError extends Error {
  abstract readonly kind: ErrorKind;
}

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
 * Whether `error` (or an error it wraps, as `cause` or in an AggregateError) says a service or the network is out of
 * reach, rather than something about the request.
 */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isConnectionError(inner, depth + 1))) return true;
  return isConnectionError(cause, depth + 1);
}

/** An embedded database another connection holds locked (SQLite's BUSY / LOCKED): a retry may get through. */
export function isStoreLocked(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * The kind of any thrown value: an MceError's own; a driver's connection failure or a locked SQLite file is
 * `unavailable`; an error of a package loaded on demand is recognised by its `kind` field (its class may come from
 * another copy of core); anything else is `internal`.
 */
export function errorKind(error: unknown): ErrorKind {
  if (error instanceof MceError) return error.kind;
  const kind = (error as { kind?: unknown } | null)?.kind;
  if (error instanceof Error && typeof kind === 'string' && (ERROR_KINDS as readonly string[]).includes(kind)) return kind as ErrorKind;
  if (isConnectionError(error) || isStoreLocked(error)) return 'unavailable';
  return 'internal';
}
