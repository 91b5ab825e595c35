/**
 * Stored results as NDJSON (`Accept: application/x-ndjson`): one JSON value a line, read from the store a chunk at a
 * time and written as it comes, so an answer of any size holds one chunk in memory, not the whole list.
 */
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { loggedError } from './answers.js';
import type { ApiLogger } from './guard.js';
import { cut, redactSecrets } from './redact.js';

/** Where a failure after the answer started is logged, and the strings never written there. */
export interface FailureLog {
  logger?: ApiLogger | undefined;
  secrets: readonly string[];
}

export const NDJSON = 'application/x-ndjson';
/** Rows read from the store at a time. */
export const NDJSON_CHUNK = 1000;

/** Whether the request asks for NDJSON (among other types it accepts). */
export function wantsNdjson(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((type) => type.split(';')[0]!.trim().toLowerCase() === NDJSON);
}

/** Reads `limit` rows from `offset`, in the listing's order. */
export type ReadRows = (offset: number, limit: number) => Promise<readonly unknown[]>;

/**
 * The rows from `offset` on (at most `total` of them; all when undefined), streamed. The first chunk is read before
 * the answer starts, so a refusal (an unknown metric) is still a JSON error with its status; a store failing later
 * ends the stream with a last line `{"error": …}` (the status was sent already) and the cause logged.
 */
export async function streamNdjson(c: Context, read: ReadRows, offset: number, total: number | undefined, log: FailureLog): Promise<Response> {
  const wanted = (done: number) => (total === undefined ? NDJSON_CHUNK : Math.min(NDJSON_CHUNK, total - done));
  let rows = wanted(0) > 0 ? await read(offset, wanted(0)) : [];
  c.header('Content-Type', NDJSON);
  return stream(
    c,
    async (out) => {
      let done = 0;
      while (rows.length > 0 && !out.aborted) {
        const asked = wanted(done);
        await out.write(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
        done += rows.length;
        if (rows.length < asked || wanted(done) === 0) break;
        rows = await read(offset + done, wanted(done));
      }
    },
    async (error, out) => {
      const requestId = c.get('requestId');
      log.logger?.error({ requestId, method: c.req.method, path: cut(redactSecrets(c.req.path, log.secrets), 256), err: loggedError(error, log.secrets) }, 'stream failed');
      await out.write(`${JSON.stringify({ error: `internal server error (request ${requestId}): the answer stops here` })}\n`);
    },
  );
}
