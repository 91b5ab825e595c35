/**
 * Signing a browser in to the web view when API keys are configured: a browser's address bar sends no
 * `Authorization` header, so `/view/sign-in` takes a key with the `read` scope in a form and keeps it in a cookie
 * (HttpOnly, SameSite=Strict, Secure over HTTPS) that the key check accepts for reading only (GET and HEAD): a page
 * of another site can neither read it nor write, delete or compute with it. `/view/sign-out` forgets it.
 */
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { ApiKeys, type ApiKey } from '../api/auth.js';
import { html } from '../api/routes/responses.js';
import { serve } from '../api/routes/serve.js';
import { esc, page } from '../report/index.js';

/** The cookie holding a signed-in browser's key. */
export const KEY_COOKIE = 'mce_key';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function form(message = ''): string {
  const alert = message ? `<p class="error" role="alert">${esc(message)}</p>` : '';
  return `${alert}<form method="post" action="/view/sign-in">
<label for="key">API key with the read scope</label>
<input id="key" name="key" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`;
}

function signInPage(c: Context, message: string | undefined, status: 200 | 400 | 401 | 403) {
  c.header('Content-Security-Policy', CSP);
  c.header('Cache-Control', 'no-store');
  return c.html(page('Sign in', form(message)), status);
}

/** A form posted from another site's page (a login forged for the attacker's key) names another origin. */
function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined || origin === 'null') return origin === undefined;
  try {
    return new URL(origin).host === c.req.header('host');
  } catch {
    return false;
  }
}

const redirect = (description: string) => ({ description });

export const signInFormRoute = createRoute({
  method: 'get',
  path: '/view/sign-in',
  summary: 'the web view: the sign-in form (without keys: to the sessions page)',
  tags: ['web view'],
  security: [{}],
  responses: { 200: html('the form'), 303: redirect('no keys configured: to /') },
});

export const signInRoute = createRoute({
  method: 'post',
  path: '/view/sign-in',
  summary: 'the web view: sign in with a key of the read scope, kept in an HttpOnly cookie',
  tags: ['web view'],
  security: [{}],
  // Described, not validated here: the form's answers are pages that name the fault.
  request: { body: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { key: { type: 'string' } } } } } } },
  responses: {
    303: redirect('signed in: to /'),
    400: html('no key given'),
    401: html('an unknown key'),
    403: html('a key without the read scope, or a form sent from another site'),
  },
});

export const signOutRoute = createRoute({
  method: 'get',
  path: '/view/sign-out',
  summary: 'the web view: forget the signed-in key',
  tags: ['web view'],
  security: [{}],
  responses: { 303: redirect('to /view/sign-in (to / without keys)') },
});

export function signInRoutes(keys: readonly ApiKey[]): OpenAPIHono {
  const table = new ApiKeys(keys);
  const routes = new OpenAPIHono();
  serve(routes, signInFormRoute, (c) => (table.size === 0 ? c.redirect('/', 303) : signInPage(c, undefined, 200)));
  serve(routes, signInRoute, async (c) => {
    if (!sameOrigin(c)) return signInPage(c, 'the form was sent from another site', 403);
    const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const presented = typeof body.key === 'string' ? body.key.trim() : '';
    if (presented === '') return signInPage(c, 'give an API key', 400);
    const key = table.find(presented);
    if (!key) return signInPage(c, 'unknown API key', 401);
    if (!key.scopes.includes('read')) return signInPage(c, `API key ${key.name} lacks the read scope the web view needs`, 403);
    const secure = new URL(c.req.url).protocol === 'https:';
    setCookie(c, KEY_COOKIE, presented, { httpOnly: true, sameSite: 'Strict', path: '/', secure });
    return c.redirect('/', 303);
  });
  serve(routes, signOutRoute, (c) => {
    deleteCookie(c, KEY_COOKIE, { path: '/' });
    return c.redirect(table.size === 0 ? '/' : '/view/sign-in', 303);
  });
  return routes;
}
