// /panel/core/*: the core settings payload, the default template, getCoreResult, update (validated by a core
// test run), and testOutbound. (getOutboundsTraffic/resetOutboundsTraffic live with the traffic routes;
// provider-a/provider-b are separate.)
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseBody } from './input.js';
import { boolish } from '../domain/clients/input.js';

const updateBody = z.object({
  coreSetting: z.string({ error: 'is required' }).min(2, 'must be the JSON text of the core config template').max(5 * 1024 * 1024),
  outboundTestUrl: z.string().max(2048).optional(),
});

const testOutboundBody = z.object({
  outbound: z.string({ error: 'is required' }).min(2, 'is required (the outbound as JSON text)').max(1024 * 1024),
  allOutbounds: z.string().max(5 * 1024 * 1024).optional(),
  mode: z.string().max(16).optional(),
  /** Opt-in for an outbound whose server really is on a private network (refused by default). */
  allowPrivate: boolish.optional(),
});

export function coreRoutes() {
  const app = new Hono<AppEnv>();

  const payload = async (c: Context<AppEnv>) => ok(c, await c.var.services.core.settingsPayload());
  app.post('/', payload);
  app.post('/:trailingSlash{/?}', payload); // `/panel/core/` (with the slash) as existing clients call it

  app.get('/getDefaultJsonConfig', (c) => ok(c, c.var.services.core.defaultTemplate()));

  app.get('/getCoreResult', (c) => ok(c, c.var.services.core.coreResult()));

  app.post('/update', async (c) => {
    const input = await parseBody(c, updateBody);
    const r = await c.var.services.core.updateSettings(input);
    const msg = r.tested ? (r.restarted ? 'core settings saved; the core restarted on them' : 'core settings saved') : 'core settings saved (not tested: no core binary)';
    return ok(c, null, msg);
  });

  app.post('/testOutbound', async (c) => {
    const input = await parseBody(c, testOutboundBody);
    return ok(c, await c.var.services.core.testOutbound(input));
  });

  return app;
}
