// /panel/core outbound counters: getOutboundsTraffic and resetOutboundsTraffic (mounted next to handlers/core.ts).
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseBody } from './input.js';

const resetBody = z.object({
  tag: z.string({ error: 'required (an outbound tag, or -alltags- for every outbound)' }).max(256, 'at most 256 characters'),
});

export function coreTrafficRoutes() {
  const app = new Hono<AppEnv>();

  /** obj: [{tag, up, down, total}] for every outbound that has moved traffic, sorted by tag. */
  app.get('/getOutboundsTraffic', async (c) => ok(c, await c.var.services.traffic.outbounds()));

  /** body (form or JSON): tag — one outbound's tag, or `-alltags-` for all of them. */
  app.post('/resetOutboundsTraffic', async (c) => {
    const { tag } = await parseBody(c, resetBody);
    const affected = await c.var.services.traffic.resetOutbounds(tag);
    return ok(c, { affected }, affected === 0 ? `no outbound counters for tag ${tag}` : 'outbound traffic reset');
  });

  return app;
}
