/** The answers every route shares, and helpers to write a route's own (JSON bodies, `{ error }` refusals). */
import type { z } from '@hono/zod-openapi';
import { ErrorSchema } from '../schemas.js';

type Schema = z.ZodType | { $ref: string } | Record<string, unknown>;

export const json = <S extends Schema>(schema: S, description: string) => ({ description, content: { 'application/json': { schema } } });

export const error = (description: string) => json(ErrorSchema, description);

/** What any route may answer besides its own statuses (401 and 403 for keys only when the server has keys). */
export const COMMON = {
  401: error('a missing or unknown API key (when the server has keys; WWW-Authenticate says Bearer)'),
  403: error('a Host or Origin the server does not serve, or an API key without the scope the route needs'),
  405: error('a known path asked with another method (the Allow header lists the methods)'),
  429: error('past the rate limit of the API key (Retry-After says when to retry)'),
  500: error('the server failed'),
  503: error('the store is busy (Retry-After says when to retry)'),
} as const;

/** What a route that reads a JSON body may answer besides. */
export const WITH_BODY = { 413: error('request body above the size limit'), 415: error('request body is not application/json') } as const;

/** An HTML page of the web view. */
export const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' as const } } } });
