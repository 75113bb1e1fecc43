// Declared routes: each route names its params, query and body schemas and its envelope's `obj` with
// `createRoute()` (@hono/zod-openapi); the same declaration validates the request and writes the OpenAPI
// document. How to add a route: docs/architecture.md ("How to add a route").
import { OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodType } from 'zod';
import type { AppEnv } from './context.js';
import { failure } from './envelope.js';
import { rawBody } from './input.js';
import { describeZodError } from '../domain/shared/zod-error.js';

export { createRoute, z } from '@hono/zod-openapi';

/** The one validation hook: a failed params/query/body parse is the envelope naming the field, HTTP 200. */
export function validationHook(
  result: { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } },
  c: Context,
): Response | undefined {
  if (!result.success) return failure(c, describeZodError(result.error));
  return undefined;
}

/** What every protected route may also answer (documented once here, not in each route). */
const AUTH_RESPONSES = {
  401: {
    description: 'No valid session or token, and the request sent `X-Requested-With: XMLHttpRequest`: the envelope',
  },
  403: { description: 'A cookie session sent an unsafe method without a valid `X-CSRF-Token`' },
  404: { description: 'No valid session or token (empty body)' },
} as const;

/**
 * A sub-app whose `openapi(route, handler)` validates and documents the route. The body is read as today's
 * clients send it — JSON, an urlencoded form or multipart (numbers and booleans then arrive as strings, which
 * the schemas accept) — and parsed by the route's schema; the document lists all three media types.
 */
export function routes(opts: { publicRoutes?: boolean } = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const register = app.openapi;
  type Handler = (c: Context<AppEnv>, next: () => Promise<void>) => unknown;
  app.openapi = ((route: RouteConfig & { hide?: boolean }, handler: Handler) => {
    if (!route.hide) app.openAPIRegistry.registerPath(documented(route, opts.publicRoutes ?? false));
    const content = route.request?.body?.content;
    const schema = content && Object.values(content).map((m) => (m as { schema?: unknown }).schema)[0];
    if (!schema) return register({ ...route, hide: true }, handler as never);
    const { body: _documentedAbove, ...request } = route.request!;
    return register({ ...route, request, hide: true }, (async (c: Context<AppEnv>, next: () => Promise<void>) => {
      const r = await (schema as ZodType).safeParseAsync(await rawBody(c));
      if (!r.success) return failure(c, describeZodError(r.error));
      c.req.addValidatedData('json', r.data as object);
      c.req.addValidatedData('form', r.data as object);
      return handler(c, next);
    }) as never);
  }) as typeof app.openapi;
  return app;
}

/** The route as the document shows it: JSON bodies are also accepted as forms; protected routes list 401/403/404. */
function documented(route: RouteConfig & { hide?: boolean }, isPublic: boolean): RouteConfig {
  type Declared = RouteConfig & { hide?: boolean; middleware?: never };
  const { hide: _hide, middleware: _middleware, ...doc } = route as Declared;
  const json = doc.request?.body?.content?.['application/json'] as { schema?: unknown } | undefined;
  const body =
    doc.request?.body && json
      ? {
          ...doc.request.body,
          content: {
            ...doc.request.body.content,
            'application/x-www-form-urlencoded': { schema: json.schema as ZodType },
            'multipart/form-data': { schema: json.schema as ZodType },
          },
        }
      : doc.request?.body;
  return {
    ...doc,
    request: doc.request && { ...doc.request, body },
    responses: isPublic ? doc.responses : { ...AUTH_RESPONSES, ...doc.responses },
  };
}

/** The management envelope around `obj` (HTTP 200 also for business and validation failures: success=false). */
export function envelope<T extends ZodType>(obj: T, description = 'The envelope; `obj` is null when success is false') {
  return {
    200: {
      description,
      content: {
        'application/json': {
          schema: z.object({ success: z.boolean(), msg: z.string(), obj: obj.nullable() }),
        },
      },
    },
  } as const;
}

/** A JSON body (also accepted as a form; see routes()). */
export function jsonBody<T extends ZodType>(schema: T, description?: string, example?: z.input<T>) {
  return { required: true, description, content: { 'application/json': { schema, example } } } as const;
}

/** Routes whose answer carries no object. */
export const noObj = z.null();
