/**
 * Query parameter schemas of the routes: each validates (with the message a 400 answers) and describes itself in the
 * OpenAPI document. A parameter arrives as a string, or as a list when repeated (`?a=1&a=2`); a single-valued one
 * takes its first value, as `c.req.query(name)` does.
 */
import { z } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import { parseTimeText } from '@mce/store';
import { BadRequestError } from './status.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.js';

const given = z.union([z.string(), z.array(z.string())]);
const first = (v: string | string[]) => (Array.isArray(v) ? v[0]! : v);
const all = (v: string | string[]) => (Array.isArray(v) ? v : [v]);

/** A failed check: the message a 400 answers. */
function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER as never;
}

/** A non-negative integer (`limit`, `offset`). */
export function integerParam(name: string, description?: string) {
  return given
    .transform((v, ctx) => {
      const text = first(v);
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) return refuse(ctx, `query parameter ${name} must be a non-negative integer (got "${text}")`);
      return Number(text);
    })
    .optional()
    .openapi({ type: 'integer', minimum: 0, ...(description ? { description } : {}) });
}

/** `limit` of a listing: at most MAX_PAGE_SIZE (a page is built whole in memory). */
export const limitParam = integerParam('limit', `page size (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`)
  .refine((limit) => limit === undefined || limit <= MAX_PAGE_SIZE, {
    error: (issue) => `query parameter limit must be at most ${MAX_PAGE_SIZE} (got ${String(issue.input)}); follow the Link header for the next page`,
  })
  .openapi({ type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE });

export const offsetParam = integerParam('offset').openapi({ type: 'integer', minimum: 0, default: 0 });

/** A time (ISO 8601, UTC without a zone, or epoch ms), checked here so a bad one is the client's error. */
export function timeParam(name: string, description: string) {
  return given
    .transform((v, ctx) => {
      const text = first(v);
      try {
        return parseTimeText(text);
      } catch {
        return refuse(ctx, `query parameter ${name} must be an ISO 8601 time or epoch milliseconds (got "${text}")`);
      }
    })
    .optional()
    .openapi({ type: 'string', description });
}

/** A text (its first value). */
export function textParam(description?: string) {
  return given.transform(first).optional().openapi({ type: 'string', ...(description ? { description } : {}) });
}

/**
 * Metric names, as `metrics=A,B` or repeated (`metrics=A&metrics=B`, how most HTTP clients send a list). Present but
 * naming none is the client's error: an empty filter must not mean "every configured metric" (judged ones cost money).
 */
export function namesParam(name: string, description: string) {
  return given
    .transform((v, ctx) => {
      const names = all(v).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
      return names.length > 0 ? names : refuse(ctx, `query parameter ${name}: give at least one metric name`);
    })
    .optional()
    .openapi({ type: 'array', items: { type: 'string' }, description, param: { style: 'form', explode: true } });
}

/** A list of values as given (comma-separated or repeated), checked by the route. */
export function listParam(description?: string, items: { type: 'string' } | { enum: string[] } = { type: 'string' }) {
  return given
    .transform(all)
    .optional()
    .openapi({ type: 'array', items, ...(description ? { description } : {}), param: { style: 'form', explode: true } });
}

/** `true` or `false`. */
export function booleanParam(name: string, description?: string) {
  return given
    .transform((v, ctx) => {
      const text = first(v);
      return text === 'true' || text === 'false' ? text === 'true' : refuse(ctx, `query parameter ${name} must be true or false (got "${text}")`);
    })
    .optional()
    .openapi({ type: 'boolean', ...(description ? { description } : {}) });
}

/**
 * The query of a route that refuses a parameter it does not know: `metric=Duration` (for `metrics`) silently ignored
 * would answer every result.
 */
export function strictQuery<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown query parameter ${issue.keys.map((p) => JSON.stringify(p)).join(', ')} (known: ${known.join(', ')})`
        : undefined,
  });
}

/**
 * The routes' validation hook: a request that fails a check is a BadRequestError (400, `{ error }`, as every other
 * refusal), naming an unknown parameter first, then the first parameter at fault.
 */
export function refuseInvalid(result: { success: boolean; error?: ZodError }): void {
  if (result.success || !result.error) return;
  const issues = result.error.issues;
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
  throw new BadRequestError(issue?.message ?? 'the request is not valid');
}
