// createPanelApp(deps): the panel's HTTP surface under the web base path.
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { requestId } from 'hono/request-id';
import { HTTPException } from 'hono/http-exception';
import { ZodError } from 'zod';
import type { AppEnv, PanelDeps } from './context.js';
import { failure } from './envelope.js';
import { InputError } from './input.js';
import { describeZodError } from './validate.js';
import { requireAuth } from './auth.js';
import { sessionRoutes } from './session.js';
import { settingsRoutes } from './settings.js';
import { coreRoutes } from './core.js';
import { coreTrafficRoutes } from './core-traffic.js';
import { serverCoreRoutes } from './server-core.js';
import { serverStatusRoutes } from './server-status.js';
import { websocketRoute } from './websocket.js';
import { inboundRoutes } from './inbounds.js';
import { clientRoutes } from './clients.js';
import { clientLinksRoutes } from './client-links.js';
import { nodeRoutes } from './nodes.js';
import { customGeoRoutes } from './custom-geo.js';
import { serverToolsRoutes } from './server-tools.js';
import { DomainError } from '../domain/shared/errors.js';

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

export function createPanelApp(deps: PanelDeps): Hono<AppEnv> {
  const panel = new Hono<AppEnv>();
  panel.use('*', requestId());
  panel.use('*', secureHeaders({ crossOriginResourcePolicy: 'same-origin' }));
  panel.use('*', async (c, next) => {
    c.set('deps', deps);
    c.set('services', deps.services);
    const started = performance.now();
    await next();
    deps.logger?.debug('request', {
      id: c.var.requestId, method: c.req.method, path: c.req.path, status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });
  const limit = bodyLimit({ maxSize: BODY_LIMIT_BYTES, onError: (c) => failure(c, 'request body too large (limit 10 MiB)', 413) });
  // importDB carries a whole database and has its own, larger limit (handlers/server-tools.ts).
  panel.use('*', (c, next) => (c.req.path.endsWith('/panel/api/server/importDB') ? next() : limit(c, next)));

  panel.route('/', sessionRoutes());
  // The push channel does its own session-only check (no Bearer, no CSRF token, Origin must be the panel's).
  panel.get('/ws', websocketRoute);

  // Everything under /panel/ needs a session (plus CSRF on unsafe methods) or a Bearer token.
  panel.use('/panel/*', requireAuth());
  panel.route('/panel/setting', settingsRoutes());
  panel.route('/panel/core', coreRoutes());
  panel.route('/panel/core', coreTrafficRoutes());
  panel.route('/panel/api/server', serverCoreRoutes());
  panel.route('/panel/api/server', serverStatusRoutes());
  panel.route('/panel/api', serverToolsRoutes()); // /server/… tools and /backuptotgbot
  panel.route('/panel/api/inbounds', inboundRoutes());
  panel.route('/panel/api/clients', clientRoutes());
  panel.route('/panel/api/clients', clientLinksRoutes());

  panel.route('/panel/api/nodes', nodeRoutes());
  panel.route('/panel/api/custom-geo', customGeoRoutes());

  panel.notFound((c) => c.body(null, 404));
  panel.onError((err, c) => errorToResponse(err, c, deps));

  const root = new Hono<AppEnv>();
  const base = deps.basePath.replace(/\/+$/, '');
  root.route(base || '/', panel);
  root.notFound((c) => c.body(null, 404));
  root.onError((err, c) => errorToResponse(err, c, deps));
  return root;
}
