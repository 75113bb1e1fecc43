// /panel/api/server: the status snapshot, host history, core metrics and observatory. Every answer is read from
// what the background sampler cached; no request triggers a reading.
import { Hono } from 'hono';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';

export function serverStatusRoutes() {
  const app = new Hono<AppEnv>();

  app.get('/status', (c) => ok(c, c.var.services.status.snapshot()));

  // Legacy alias of /history/cpu/:bucket (same {t, v} samples).
  app.get('/cpuHistory/:bucket', (c) => ok(c, c.var.services.status.history('cpu', c.req.param('bucket'))));

  app.get('/history/:metric/:bucket', (c) =>
    ok(c, c.var.services.status.history(c.req.param('metric'), c.req.param('bucket'))));

  app.get('/coreMetricsState', (c) => ok(c, c.var.services.status.coreMetricsState()));

  app.get('/coreMetricsHistory/:metric/:bucket', (c) =>
    ok(c, c.var.services.status.coreMetricsHistory(c.req.param('metric'), c.req.param('bucket'))));

  app.get('/coreObservatory', (c) => ok(c, c.var.services.status.observatory()));

  app.get('/coreObservatoryHistory/:tag/:bucket', (c) =>
    ok(c, c.var.services.status.observatoryHistory(c.req.param('tag'), c.req.param('bucket'))));

  return app;
}
