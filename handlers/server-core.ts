// /panel/api/server core operations: stopCoreService, restartCoreService, getConfigJson (mounted next to the
// server status routes).
import { Hono } from 'hono';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';

export function serverCoreRoutes() {
  const app = new Hono<AppEnv>();

  app.post('/stopCoreService', async (c) => {
    await c.var.services.core.stop();
    return ok(c, null, 'core stopped');
  });

  app.post('/restartCoreService', async (c) => {
    await c.var.services.core.restart();
    return ok(c, null, 'core restarted');
  });

  app.get('/getConfigJson', async (c) => ok(c, await c.var.services.core.configJson()));

  return app;
}
