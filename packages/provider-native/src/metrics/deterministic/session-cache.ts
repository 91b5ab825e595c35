import type { Session } from '@mce/core';

/**
 * One cache object per session for everything the deterministic metrics precompute (spans, indexes, counts, costs,
 * sequences): a single WeakMap entry per session keeps the garbage collector's ephemeron work low. Sessions are
 * treated as immutable while they are being computed.
 *
 * Only the caches of the most recent sessions are kept: a run that holds many sessions alive (a batch, a benchmark)
 * would otherwise keep every cache alive too (tens of kB per 200-span session). A session evicted while still being
 * computed (more than `RECENT_SESSIONS` interleaved) only has its cache rebuilt. The ring holds weak references, so it
 * never keeps a session alive.
 */
export type SessionCache = Record<string, unknown>;

const RECENT_SESSIONS = 64;
const caches = new WeakMap<Session, SessionCache>();
const recent: Array<WeakRef<Session> | undefined> = new Array<WeakRef<Session> | undefined>(RECENT_SESSIONS);
let next = 0;

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
    const evicted = recent[next]?.deref();
    if (evicted) caches.delete(evicted);
    recent[next] = new WeakRef(session);
    next = (next + 1) % RECENT_SESSIONS;
    caches.set(session, cache);
  }
  return cache;
}

/** The value under `key` for this session, built by `build` the first time. */
export function perSession<T>(session: Session, key: string, build: (session: Session) => T): T {
  const cache = sessionCache(session);
  if (key in cache) return cache[key] as T;
  const value = build(session);
  cache[key] = value;
  return value;
}
