/** Page sizes of the listing routes (`GET /sessions`, `GET /results`), shared by the routes and their OpenAPI document. */

/** Sessions (or results) a listing returns when the request names no `limit` (as `mce sessions list`). */
export const DEFAULT_PAGE_SIZE = 100;
/** The largest page a listing answers: a page is built whole in memory, so `limit=10000000` must not be one. */
export const MAX_PAGE_SIZE = 1000;
