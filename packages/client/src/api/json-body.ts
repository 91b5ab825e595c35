/** A small JSON request body read as text, so a refusal can name where in it the fault is (line and column). */
import type { Context } from 'hono';
import { positionText, syntaxErrorPosition } from '../ingest/json-position.js';
import { excessDepthAt, MAX_JSON_DEPTH } from '../ingest/json-depth.js';
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
