/**
 * The read-only web view of `mce serve`, over the same store as the REST API: the sessions list with filters (time,
 * service, a Session metric's range) at `/`, a session's report at `/view/sessions/:id` (the components of
 * `mce report`), and per-metric trends over time from the result summaries at `/view/trends`. Only GETs; every page
 * is self-contained (inline CSS and script, a Content-Security-Policy that lets it fetch nothing).
 */
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { SessionNotFoundError, type SessionComputation } from '@mce/core';
import type { MCEClient } from '../mce-client.js';
import { buildSessionReport, esc, newestResults, page, sessionSection } from '../report/index.js';
import { html } from '../api/routes/responses.js';
import { serve } from '../api/routes/serve.js';
import { WebBadRequest } from './params.js';
import { sessionsPage } from './sessions-page.js';
import { trendsPage } from './trends-page.js';

/** What the pages may load: nothing but themselves (inline style and script), and forms back to this server. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const NAV = '<nav aria-label="Views"><a href="/">Sessions</a> · <a href="/view/trends">Trends</a></nav>';

function htmlPage(c: Context, title: string, body: string, status: 200 | 400 | 404 = 200) {
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
  return c.html(page(title, body, NAV), status);
}

/** A page's handler, its client errors as HTML pages (the API's JSON errors are for API clients). */
function view(render: (c: Context) => Promise<{ title: string; body: string }>) {
  return async (c: Context) => {
    try {
      const { title, body } = await render(c);
      return htmlPage(c, title, body);
    } catch (error) {
      if (error instanceof WebBadRequest) return htmlPage(c, 'Bad request', `<p class="error" role="alert">${esc(error.message)}</p>`, 400);
      if (error instanceof SessionNotFoundError) return htmlPage(c, 'Session not found', `<p class="error" role="alert">${esc(error.message)}</p>`, 404);
      throw error;
    }
  };
}

/** A page's definition: HTML, 400 for a bad filter, 404 for an unknown session (its filters are read by the page). */
const pageRoute = <P extends string>(path: P, summary: string) =>
  createRoute({
    method: 'get',
    path,
    summary,
    tags: ['web view'],
    responses: { 200: html('the page'), 303: { description: 'with keys and no signed-in browser: to /view/sign-in' }, 400: html('a bad filter, named'), 404: html('no such session') },
  });

export const sessionsPageRoute = pageRoute('/', 'the web view: stored sessions with filters (time, service, a Session metric range)');
export const trendsPageRoute = pageRoute('/view/trends', 'the web view: per-metric trends over time');
export const sessionPageRoute = pageRoute('/view/sessions/{id}', "the web view: a session's report");

export function webRoutes(client: MCEClient): OpenAPIHono {
  const web = new OpenAPIHono();
  serve(web, sessionsPageRoute, view((c) => sessionsPage(client, c)));
  serve(web, trendsPageRoute, view((c) => trendsPage(client, c)));
  serve(
    web,
    sessionPageRoute,
    view(async (c) => {
      const id = c.req.param('id')!;
      const session = await client.store.getSession(id);
      if (!session) throw new SessionNotFoundError([id]);
      const computation: SessionComputation = { sessionId: id, results: newestResults(await client.getMetrics(id, { recursive: true })), failed: [], skipped: [] };
      return { title: `Session ${id}`, body: sessionSection(buildSessionReport(session, computation, false), 'session-1') };
    }),
  );
  return web;
}
