/**
 * A request body's size limit that counts the bytes as the body streams through to whoever reads it. A declared
 * Content-Length over the limit is refused before anything is read; a body without one (chunked) fails its reader
 * the moment its count passes the limit, and the request is answered with the same refusal. Nothing is buffered
 * here: hono's `bodyLimit` collected a chunked body into a buffer it grew up to the limit (64 MiB per oversized body,
 * copied at each doubling on the event loop, and C allocator pages the server kept afterwards).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { MceError } from '@mce/core';

/** A body whose bytes passed the limit while it was read (413). */
export class BodyTooLargeError extends MceError {
  readonly kind = 'bad-input' as const;
}

/** The refusal to send, in the app's own form, with the message to say. */
export type BodyRefusal = (c: Context, message: string) => Response;

export function streamedBodyLimit(maxBytes: number, refuse: BodyRefusal): MiddlewareHandler {
  const message = `request body larger than ${maxBytes} bytes`;
  // The rest of a refused body is never read, so the connection cannot carry another request: said, so that a client
  // opens a new one instead of sending its next request down a socket the server is closing.
  const refuseAndClose = (c: Context) => {
    c.header('Connection', 'close');
    return refuse(c, message);
  };
  return async (c, next) => {
    // No body to count; and asking a GET for its body would build the whole Request on every read.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = c.req.raw.headers.has('content-length') && !c.req.raw.headers.has('transfer-encoding');
    // A body cannot be longer than its Content-Length (Node's parser stops it there).
    if (declared) return Number(c.req.header('content-length')) > maxBytes ? refuseAndClose(c) : next();
    let passed = false;
    const counted = countedBody(body, maxBytes, () => ((passed = true), new BodyTooLargeError(message)));
    c.req.raw = new Request(c.req.raw, { body: counted, duplex: 'half' } as RequestInit);
    await next();
    // Whatever the route made of its failed read (a 400 for a body cut short, a 500), the answer is the refusal.
    if (passed) c.res = refuseAndClose(c);
  };
}

/**
 * The body's chunks as they come, failed with `overflow()` once more than `maxBytes` have come. The rest is left
 * unread, not cancelled: cancelling would close the connection before the refusal is sent; the server drains or
 * closes it once it has answered.
 */
export function countedBody(body: ReadableStream<Uint8Array>, maxBytes: number, overflow: () => Error): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let count = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        count += value.byteLength;
        if (count <= maxBytes) return controller.enqueue(value);
        reader.releaseLock();
        controller.error(overflow());
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
