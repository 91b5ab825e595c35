/**
 * The read-only web view of `mce serve`, over the same store as the REST API: the sessions list with filters (time,
 * service, a Session metric's range) at `/`, a session's report at `/view/sessions/:id` (the components of
 * `mce report`), and per-metric trends over time from the result summaries at `/view/trends`. Only GETs; every page
 * is self-contained (inline CSS and script, a Content-Security-Policy that lets it fetch nothing).
 */
import { Hono, type Context } from 'hono';
import { SessionNotFoundError, type SessionComputation } from '@mce/core';
import type { MCEClient } from '../mce-client.js';
import { buildSessionReport, esc, newestResults, page, sessionSection } from '../report/index.js';
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

export function webRoutes(client: MCEClient): Hono {
  const web = new Hono();
  web.get('/', view((c) => sessionsPage(client, c)));
  web.get('/view/trends', view((c) => trendsPage(client, c)));
  web.get(
    '/view/sessions/:id',
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
