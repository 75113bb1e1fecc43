// createPanelApp(deps): the panel's HTTP surface under the web base path. `PanelApp` is its route type for
// `hc<PanelApp>(origin + basePath)` (hono/client) in scripts, tests and the browser UI.
import { Hono, type Context } from 'hono';
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { requestId } from 'hono/request-id';
import { HTTPException } from 'hono/http-exception';
import { ZodError } from 'zod';
import type { AppEnv, PanelDeps, Site } from './context.js';
import { failure } from './envelope.js';
import { InputError } from './input.js';
import { validationHook } from './route.js';
import { requireAuth } from './auth.js';
import { SESSION_BODY_PATHS, sessionRoutes } from './session.js';
import { settingsRoutes } from './settings.js';
import { coreRoutes } from './core.js';
import { coreTrafficRoutes } from './core-traffic.js';
import { serverCoreRoutes } from './server-core.js';
import { serverStatusRoutes } from './server-status.js';
import { websocketRoutes } from './websocket.js';
import { inboundRoutes } from './inbounds.js';
import { clientRoutes } from './clients.js';
import { clientLinksRoutes } from './client-links.js';
import { nodeRoutes } from './nodes.js';
import { customGeoRoutes } from './custom-geo.js';
import { serverToolsRoutes } from './server-tools.js';
import { uiRoutes } from './ui.js';
import { providerRoutes } from './providers.js';
import { apiDocsRoutes, openApiDocument, type OpenApiDocument } from './api-docs.js';
import { DomainError } from '../domain/shared/errors.js';
import { describeZodError } from '../domain/shared/zod-error.js';

export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** Maps any thrown error to the envelope: input and business failures are HTTP 200 with success=false. */
export function errorToResponse(err: unknown, c: Context<any>, deps?: PanelDeps): Response {
  if (err instanceof InputError || err instanceof DomainError) return failure(c, err.message);
  if (err instanceof ZodError) return failure(c, describeZodError(err));
  if (err instanceof HTTPException) {
    if (err.status === 400) return failure(c, `bad request: ${err.message || 'malformed body'}`);
    if (err.status === 413) return failure(c, 'request body too large (limit 10 MiB)', 413);
    return err.getResponse();
  }
  deps?.logger?.error('unhandled error', { path: c.req.path, error: err instanceof Error ? err.stack : String(err) });
  return failure(c, 'internal error; see the panel log', 500);
}

/**
 * Every declared route, at its path under the base path. Mounted by createPanelApp behind the middleware below;
 * its type is the typed client's contract.
 */
export function panelRoutes() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .route('/', sessionRoutes())
    .route('/', websocketRoutes())
    .route('/panel/setting', settingsRoutes())
    .route('/panel/core', coreRoutes())
    .route('/panel/core', coreTrafficRoutes())
    .route('/panel/core', providerRoutes())
    .route('/panel/api/server', serverCoreRoutes())
    .route('/panel/api/server', serverStatusRoutes())
    .route('/panel/api', serverToolsRoutes()) // /server/… tools and /backuptotgbot
    .route('/panel/api/inbounds', inboundRoutes())
    .route('/panel/api/clients', clientRoutes())
    .route('/panel/api/clients', clientLinksRoutes())
    .route('/panel/api/nodes', nodeRoutes())
    .route('/panel/api/custom-geo', customGeoRoutes());
}

/** The panel's routes as `hc<PanelApp>()` sees them (paths relative to the base path). */
export type PanelApp = ReturnType<typeof panelRoutes>;

export function createPanelApp(deps: PanelDeps): Hono<AppEnv> {
  const panel = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  panel.use('*', requestId());
  panel.use('*', secureHeaders({ crossOriginResourcePolicy: 'same-origin' }));
  const { basePath, secure, logger, clientIp, upgradeWebSocket } = deps;
  const site: Site = { basePath, secure, logger, clientIp, upgradeWebSocket };
  panel.use('*', async (c, next) => {
    c.set('site', site);
    c.set('services', deps.services);
    const started = performance.now();
    await next();
    deps.logger?.debug('request', {
      id: c.var.requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });
  // The limit applies only where a body is read, after authentication: an anonymous request of any size gets the
  // same empty 404 as any other, so a 413 cannot reveal the panel behind a secret base path.
  const limitBody = bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: (c) => failure(c, 'request body too large (limit 10 MiB)', 413),
  });
  for (const path of SESSION_BODY_PATHS) panel.use(path, limitBody);

  // The browser UI's pages redirect to the login page themselves (before the API's auth answers 404/401).
  if (deps.ui) panel.route('/', uiRoutes(deps.ui));

  // Everything under /panel/ needs a session (plus CSRF on unsafe methods) or a Bearer token. The session routes
  // and the push channel (its own session-only check: no Bearer, no CSRF token, Origin the panel's) sit outside.
  panel.use('/panel/*', requireAuth());
  // importDB carries a whole database and has its own, larger limit (handlers/server-tools.ts).
  panel.use('/panel/*', (c, next) => (c.req.path.endsWith('/panel/api/server/importDB') ? next() : limitBody(c, next)));
  const routes = panelRoutes();
  panel.route('/', routes);
  let document: OpenApiDocument | undefined;
  panel.route(
    '/panel/api',
    apiDocsRoutes(() => (document ??= openApiDocument(routes, deps.basePath)), deps.docsAssets),
  );

  panel.notFound((c) => c.body(null, 404));
  panel.onError((err, c) => errorToResponse(err, c, deps));

  const root = new Hono<AppEnv>();
  const base = deps.basePath.replace(/\/+$/, '');
  root.route(base || '/', panel);
  // A sub-app mounted at /base matches "/base" but not "/base/", where the login page lives (UI.md: GET {base}).
  if (base && deps.ui) {
    root.get(`${base}/`, (c) => {
      const url = new URL(c.req.url);
      url.pathname = '/'; // the sub-app's own routes are relative to the base
      return panel.fetch(new Request(url, c.req.raw), c.env);
    });
  }
  root.notFound((c) => c.body(null, 404));
  root.onError((err, c) => errorToResponse(err, c, deps));
  return root;
}
