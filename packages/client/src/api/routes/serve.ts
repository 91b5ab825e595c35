/** A route whose answer the route's zod schemas cannot type (a body of core's JSON Schema, or JSON already written). */
import type { OpenAPIHono, RouteConfig, RouteHandler } from '@hono/zod-openapi';

export type RouteContext<R extends RouteConfig> = Parameters<RouteHandler<R>>[0];

/** `app.openapi(route, handler)` with the request typed by the route and any Response allowed as the answer. */
export function serve<R extends RouteConfig>(app: OpenAPIHono, route: R, handler: (c: RouteContext<R>) => Response | Promise<Response>): void {
  app.openapi(route, handler as unknown as RouteHandler<R>);
}
