// The processors the worker benchmark can run, and the preparation of the sessions they read.
import { sessionId, syntheticSession } from './sessions.mjs';

const noop = {
  async processBatch(items) {
    return { items: items.map((item) => ({ sessionId: item.sessionId, status: 'ok', results: 0, failedMetrics: 0 })) };
  },
};

/** `{ processor, close }` for a worker process. */
export async function createProcessor(kind, { pgUrl, schema, recursive }) {
  if (kind === 'noop') return { processor: noop, close: async () => undefined };
  if (kind !== 'service') throw new Error(`unknown processor "${kind}" (service | noop)`);
  const { openServiceProcessor } = await import('./service.mjs');
  return openServiceProcessor({ pgUrl, schema, recursive });
}

/** Writes the synthetic sessions to the store (unless already there) and returns their ids. */
export async function prepareSessions(kind, { pgUrl, schema, count, fresh }) {
  const sessionIds = Array.from({ length: count }, (_, i) => sessionId(i));
  if (kind === 'noop') return { sessionIds, close: async () => undefined };
  const { writeBenchSessions } = await import('./service.mjs');
  const { wroteSeconds, close } = await writeBenchSessions({ pgUrl, schema, ids: sessionIds, fresh, make: syntheticSession });
  return { sessionIds, wroteSeconds, close };
}

/** Before and after each pass: no results left from the previous one. */
export async function clearResults(kind, { pgUrl, schema }) {
  if (kind === 'noop') return;
  const { clearBenchResults } = await import('./service.mjs');
  await clearBenchResults({ pgUrl, schema });
}

/** What the pass stored (undefined for the noop processor). */
export async function countResults(kind, { pgUrl, schema }) {
  if (kind === 'noop') return undefined;
  const { countBenchResults } = await import('./service.mjs');
  return countBenchResults({ pgUrl, schema });
}
