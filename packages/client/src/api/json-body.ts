/** A small JSON request body read as text, so a refusal can name where in it the fault is (line and column). */
import type { Context } from 'hono';
import { positionText, syntaxErrorPosition } from '@mce/ingest';
import { excessDepthAt, MAX_JSON_DEPTH } from '@mce/ingest';
import { BadRequestError, UnsupportedMediaTypeError } from './status.js';

/**
 * The request body as text, '' when there is none. A body that says nothing of its type is refused as a typed
 * non-JSON one is (by the content type middleware): a page of another site can send either without asking.
 */
export async function bodyText(c: Context): Promise<string> {
  const text = await c.req.text();
  if (text.trim() !== '' && c.req.header('content-type') === undefined) throw new UnsupportedMediaTypeError('request body must be application/json (got no content type)');
  return text;
}

/**
 * The request body's bytes, read chunk by chunk into one buffer (its size from Content-Length, which the body limit
 * has checked): no text of it is made on the event loop. Refused as `bodyText` refuses it when it has no type.
 */
export async function bodyBytes(c: Context): Promise<Uint8Array> {
  const bytes = await readAll(c.req.raw.body, Number(c.req.header('content-length')));
  if (c.req.header('content-type') === undefined && !isBlank(bytes)) throw new UnsupportedMediaTypeError('request body must be application/json (got no content type)');
  return bytes;
}

async function readAll(body: ReadableStream<Uint8Array> | null, declared: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  let buffer = new Uint8Array(Number.isSafeInteger(declared) && declared > 0 ? declared : 64 * 1024);
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return buffer.subarray(0, size);
    if (size + value.byteLength > buffer.byteLength) {
      const grown = new Uint8Array(Math.max(buffer.byteLength * 2, size + value.byteLength));
      grown.set(buffer.subarray(0, size));
      buffer = grown;
    }
    buffer.set(value, size);
    size += value.byteLength;
  }
}

/** Whether the bytes are only whitespace (as `text.trim() === ''`): a scan that stops at the first other byte. */
function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    // Beyond ASCII (a no-break space, a BOM, …): as the text says.
    return byte >= 0x80 && new TextDecoder().decode(bytes).trim() === '';
  }
  return true;
}

/** A request body's JSON (400 when it is none, naming where it stops being JSON or nests too deeply). */
export function parseJson(text: string): unknown {
  const tooDeep = excessDepthAt(text);
  if (tooDeep) throw new BadRequestError(`request body nests deeper than ${MAX_JSON_DEPTH} levels${positionText(tooDeep)}`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`request body is not JSON${positionText(syntaxErrorPosition(text, err))}`);
  }
}
