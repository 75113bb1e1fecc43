// /panel/api/server core operations: stopCoreService, restartCoreService, getConfigJson (mounted next to the
// server status routes).
import { ok } from './envelope.js';
import { createRoute, envelope, noObj, routes, z } from './route.js';

const tags = ['core'];

export function serverCoreRoutes() {
  return routes()
    .openapi(
      createRoute({
        method: 'post',
        path: '/stopCoreService',
        tags,
        summary: 'Stop the core',
        responses: envelope(noObj),
      }),
      async (c) => {
        await c.var.services.core.stop();
        return ok(c, null, 'core stopped');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/restartCoreService',
        tags,
        summary: 'Restart the core on a freshly built config',
        responses: envelope(noObj),
      }),
      async (c) => {
        await c.var.services.core.restart();
        return ok(c, null, 'core restarted');
      },
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/getConfigJson',
        tags,
        summary: 'The core config the panel builds now',
        responses: envelope(z.record(z.string(), z.unknown())),
      }),
      async (c) => ok(c, await c.var.services.core.configJson()),
    );
}
