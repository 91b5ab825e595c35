/** A small JSON request body read as text, so a refusal can name where in it the fault is (line and column). */
import type { Context } from 'hono';
import { positionText, syntaxErrorPosition } from '@mce/ingest';
import { excessDepthAt, MAX_JSON_DEPTH } from '@mce/ingest';
import type { BodyReadOptions } from './body-reader.js';
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
 * What the body reader needs of a request besides its body: the size it declares, and the refusal of a body that says
 * nothing of its type (as `bodyText` refuses it), at its first bytes that are not blank rather than once it is read.
 */
export function bodyReadOptions(c: Context): BodyReadOptions {
  const length = c.req.header('content-length');
  const declaredBytes = length === undefined || c.req.header('transfer-encoding') !== undefined ? undefined : Number(length);
  return {
    ...(declaredBytes !== undefined && Number.isSafeInteger(declaredBytes) ? { declaredBytes } : {}),
    ...(c.req.header('content-type') === undefined ? { inspect: refusedUnlessBlank() } : {}),
  };
}

/** Throws at the first chunk with more than whitespace (as `text.trim() !== ''`, a character cut between chunks kept). */
function refusedUnlessBlank(): (chunk: Uint8Array) => void {
  const utf8 = new TextDecoder();
  return (chunk) => {
    if (utf8.decode(chunk, { stream: true }).trim() !== '') throw new UnsupportedMediaTypeError('request body must be application/json (got no content type)');
  };
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
