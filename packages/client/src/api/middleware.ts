/** What the JSON API asks of every request body: a size limit, and a JSON content type. */
import type { MiddlewareHandler } from 'hono';
import { streamedBodyLimit } from './body-limit.js';

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * A body larger than `maxBytes` is refused with 413: before it is read when its Content-Length says so, else the
 * moment the bytes read pass the limit (body-limit.ts).
 */
export function jsonBodyLimit(maxBytes: number): MiddlewareHandler {
  return streamedBodyLimit(maxBytes, (c, message) => c.json({ error: message }, 413));
}

/**
 * A posted body must say it is JSON: a form or text/plain post is what another site's page can send without asking
 * (an untyped body is refused where it is read, see json-body.ts).
 */
export function jsonContentType(): MiddlewareHandler {
  return async (c, next) => {
    const contentType = c.req.header('content-type');
    if (c.req.method === 'POST' && contentType !== undefined) {
      const type = contentType.split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') return c.json({ error: `request body must be application/json (got ${type || 'an empty content type'})` }, 415);
    }
    await next();
  };
}
