/** Page sizes of the listing routes (`GET /sessions`, `GET /results`, …), and the link to a listing's next page. */
import type { Context } from 'hono';
import { BadRequestError } from './status.js';

/** Sessions (or results) a listing returns when the request names no `limit` (as `mce sessions list`). */
export const DEFAULT_PAGE_SIZE = 100;
/** The largest page a listing answers: a page is built whole in memory, so `limit=10000000` must not be one. */
export const MAX_PAGE_SIZE = 1000;

/** A full page may have a next one: its link (RFC 8288, as paginated APIs send it); the body stays the list. */
export function linkNextPage(c: Context, limit: number, offset: number, size: number): void {
  if (limit === 0 || size < limit) return;
  linkNext(c, { limit: String(limit), offset: String(offset + limit) });
}

/** The `Link: rel="next"` header: this request's URL with `params` set (undefined: removed). */
export function linkNext(c: Context, params: Record<string, string | undefined>): void {
  const next = new URL(c.req.url);
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) next.searchParams.delete(name);
    else next.searchParams.set(name, value);
  }
  c.header('Link', `<${next.pathname}${next.search}>; rel="next"`);
}

/** The page size asked for (a non-negative integer, or none: the default), refused past MAX_PAGE_SIZE. */
export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (limit > MAX_PAGE_SIZE) throw new BadRequestError(`query parameter limit must be at most ${MAX_PAGE_SIZE} (got ${limit}); follow the Link header for the next page`);
  return limit;
}
