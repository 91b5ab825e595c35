import type { Session } from '@mce/core';

/**
 * One cache object per session for everything the deterministic metrics precompute (spans, indexes, counts, costs,
 * sequences): a single WeakMap entry per session keeps the garbage collector's ephemeron work low. Sessions are
 * treated as immutable while they are being computed.
 *
 * The engine calls `releaseSessionCache` (the provider's `releaseSession`) when it is done with a session, so a run
 * that holds many sessions alive (a batch, a benchmark) keeps only the caches of the sessions in flight. Metrics used
 * without the engine keep theirs as long as the session lives. (No ring of WeakRefs to evict old entries: V8 keeps a
 * WeakRef's target alive until the current task ends, so a loop computing sessions without I/O in between kept every
 * session it had seen.)
 */
export type SessionCache = Record<string, unknown>;

const caches = new WeakMap<Session, SessionCache>();

/** The session a batch is being computed for, and its cache: looked up once per batch instead of once per element. */
let scopedSession: Session | undefined;
let scopedCache: SessionCache | undefined;

/** Runs `fn` with `session`'s cache at hand; nothing is kept once it returns. */
export function inSessionScope<T>(session: Session, fn: () => T): T {
  const previous = [scopedSession, scopedCache] as const;
  scopedCache = sessionCache(session);
  scopedSession = session;
  try {
    return fn();
  } finally {
    [scopedSession, scopedCache] = previous;
  }
}

export function sessionCache(session: Session): SessionCache {
  if (session === scopedSession) return scopedCache as SessionCache;
  let cache = caches.get(session);
  if (!cache) {
    cache = {};
    caches.set(session, cache);
  }
  return cache;
}

/** Drops what was cached for `session` (the engine is done with it). */
export function releaseSessionCache(session: Session): void {
  caches.delete(session);
}

/** The value under `key` for this session, built by `build` the first time. */
export function perSession<T>(session: Session, key: string, build: (session: Session) => T): T {
  const cache = sessionCache(session);
  if (key in cache) return cache[key] as T;
  const value = build(session);
  cache[key] = value;
  return value;
}
