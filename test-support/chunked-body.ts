/** A request body as a stream of chunks, as a client sends one without a Content-Length (chunked transfer encoding). */

/** `bytes` in chunks of `size` bytes; with `failAt`, the stream errors once that many bytes are sent (a client gone). */
export function chunkedBody(bytes: Uint8Array, size: number, failAt?: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull: (c) => {
      if (failAt !== undefined && at >= failAt) return c.error(new Error('the client went away'));
      if (at >= bytes.byteLength) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}
