/**
 * The cursor of a listing of results (`cursor=` of the next page's link): where the page before ended, the timestamp
 * and id of its last result, as base64url JSON. A page read after it costs its own rows; one read by offset also
 * reads every row before it (walking a session's 500,000 results by offset took minutes on SQLite).
 */
import type { Context } from 'hono';
import { hasLoneSurrogate } from '@mce/core';
import type { ResultCursor } from '@mce/store';
import type { ReadRows } from './ndjson.js';
import { linkNext } from './paging.js';
import { BadRequestError } from './status.js';

/** Longer than any cursor this API writes (an id is at most 1,024 UTF-8 bytes). */
const MAX_CURSOR_LENGTH = 4096;

export function encodeCursor(cursor: ResultCursor): string {
  return Buffer.from(JSON.stringify([cursor.timestamp, cursor.id]), 'utf8').toString('base64url');
}

/** The cursor of `cursor=`; a 400 for anything this API did not write. */
export function decodeCursor(text: string): ResultCursor {
  const refused = new BadRequestError('query parameter cursor is not one this API gave: follow the Link header of the page before');
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw refused;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw refused;
  }
  if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => typeof v === 'string') || !Number.isFinite(Date.parse(value[0] as string))) throw refused;
  // No stored id holds a NUL or a lone surrogate (PostgreSQL refuses either as a parameter): none this API wrote.
  if ((value[1] as string).includes('\u0000') || hasLoneSurrogate(value[1] as string)) throw refused;
  return { timestamp: value[0] as string, id: value[1] as string };
}

/** A full page's link to the next one: the same query, the cursor of its last row (`last`) instead of an offset. */
export function linkNextCursor(c: Context, limit: number, size: number, last: ResultCursor | undefined): void {
  if (limit === 0 || size < limit || !last) return;
  linkNext(c, { offset: undefined, limit: String(limit), cursor: encodeCursor({ timestamp: last.timestamp, id: last.id }) });
}

/**
 * Rows read a chunk at a time, each after the last row of the one before (`cursorOf` a row: its result's timestamp
 * and id; the first chunk from `start`, at the offset asked): what NDJSON streams chunk by chunk, without reading
 * again the rows it has sent.
 */
export function readAfterEach<Row>(
  read: (after: ResultCursor | undefined, offset: number, limit: number) => Promise<Row[]>,
  cursorOf: (row: Row) => ResultCursor,
  start: ResultCursor | undefined,
): ReadRows {
  let after = start;
  let first = true;
  return async (offset, limit) => {
    const rows = await read(after, first ? offset : 0, limit);
    first = false;
    const last = rows.at(-1);
    if (last !== undefined) after = cursorOf(last);
    return rows;
  };
}
