/**
 * Where the legacy API reads sessions and writes results: the configured mce store (the default), or a telemetry-hub
 * api-layer (api-layer.ts). Both answer the same two questions and take the same results.
 */
import type { Session, SessionComputation } from '@mce/core';
// Types only: `mce serve` loads this module (through ./mount) without a second copy of the client.
import type { MCEClient } from '@mce/client';
import type { LegacyResults } from './response.js';

export interface BatchQuery {
  start: string;
  end: string;
  numSessions?: number;
  appName?: string;
}

export interface LoadedSessions {
  sessions: Session[];
  notFound: string[];
}

export interface SessionSource {
  readonly name: string;
  /** The ids of the batch, newest first, at most `maxSessions` before `numSessions` is applied. */
  listSessionIds(batch: BatchQuery, maxSessions: number): Promise<string[]>;
  loadSessions(ids: readonly string[]): Promise<LoadedSessions>;
}

/** A result that could not be written, and why. */
export interface UnwrittenResult {
  metricName: string;
  sessionId: string;
  error: string;
}

export interface ResultSink {
  write(results: LegacyResults, computations: readonly SessionComputation[]): Promise<UnwrittenResult[]>;
}

/**
 * Sessions of the client's store; the window is on their start time, and `app_name` keeps the sessions whose app or
 * service name it is (the old clients sent either; the old api-layer ignored it).
 */
export function storeSource(client: MCEClient): SessionSource {
  return {
    name: 'store',
    async listSessionIds(batch, maxSessions) {
      const summaries = (await client.store.listSessions({ from: batch.start, to: batch.end })).filter((s) => !batch.appName || s.appName === batch.appName || s.serviceName === batch.appName);
      const newestFirst = summaries.sort((a, b) => b.startTime - a.startTime).map((s) => s.id);
      return newestFirst.slice(0, Math.min(maxSessions, batch.numSessions ?? maxSessions));
    },
    async loadSessions(ids) {
      const found = await client.store.getSessions(ids);
      return { sessions: ids.flatMap((id) => found.get(id) ?? []), notFound: ids.filter((id) => !found.has(id)) };
    },
  };
}

/** mce's own results, stored as any computation is (the legacy lists are a view of them). */
export function storeSink(client: MCEClient): ResultSink {
  return {
    async write(_results, computations) {
      const outcome = await client.storeComputations(computations);
      // Rejected because the session is no longer stored (deleted while computed).
      const unstored = new Set(outcome.rejected.flatMap((r) => (r.unstoredSession === undefined ? [] : [r.unstoredSession])));
      return computations.filter((c) => unstored.has(c.sessionId)).flatMap((c) => c.results.map((r) => ({ metricName: r.name, sessionId: c.sessionId, error: 'the session was deleted from the store while it was computed' })));
    },
  };
}
