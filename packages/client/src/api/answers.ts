/** How the app answers what no route answers: an unknown route (404), a known path with another method (405), an error. */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import type { ApiLogger } from './guard.js';
import { cut, redactSecrets } from './redact.js';
import { errorAnswer } from './status.js';

/** The methods of the app's routes whose pattern matches `path` (`:param` is one path segment). */
export function methodsOf(app: { routes: ReadonlyArray<{ method: string; path: string }> }, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue; // middleware
    const pattern = new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD'); // answered by the GET route
  return [...methods];
}

/** A known path asked with another method is 405 with the methods it has (RFC 9110), not an unknown route. */
export function notFound(app: { routes: ReadonlyArray<{ method: string; path: string }> }): NotFoundHandler {
  return (c) => {
    const allowed = methodsOf(app, c.req.path);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return c.json({ error: `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allowed.join(', ')})` }, 405);
    }
    return c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404);
  };
}

/** An error as a log field: its message and stack redacted and bounded, its cause's message beside. */
export function loggedError(error: unknown, secrets: readonly string[]): { type: string; message: string; stack?: string; cause?: string } {
  const clean = (text: string, max: number) => cut(redactSecrets(text, secrets), max);
  if (!(error instanceof Error)) return { type: typeof error, message: clean(String(error), 2000) };
  const cause = error.cause instanceof Error ? error.cause.message : error.cause === undefined ? undefined : String(error.cause);
  return {
    type: error.name,
    message: clean(error.message, 2000),
    ...(error.stack ? { stack: clean(error.stack, 4000) } : {}),
    ...(cause !== undefined ? { cause: clean(cause, 2000) } : {}),
  };
}

/**
 * An error's answer by its kind (status.ts); a 500's cause goes to the log with the request's id, not to the client:
 * a store's raw error text is no answer.
 */
export function onError(logger: ApiLogger | undefined, secrets: readonly string[]): ErrorHandler {
  return (error, c: Context) => {
    const answer = errorAnswer(error);
    if (answer.retryAfterSeconds !== undefined) c.header('Retry-After', String(answer.retryAfterSeconds));
    if (answer.status !== 500) return c.json({ error: answer.message }, answer.status);
    const requestId = c.get('requestId');
    logger?.error({ requestId, method: c.req.method, path: cut(redactSecrets(c.req.path, secrets), 256), err: loggedError(error, secrets) }, 'request failed');
    return c.json({ error: `internal server error (request ${requestId})` }, 500);
  };
}
