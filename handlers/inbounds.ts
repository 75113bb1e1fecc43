// /panel/api/inbounds/*: inbounds, their projected clients, traffic resets, import, fallbacks.
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok, okJsonText } from './envelope.js';
import { InputError, parseBody, parseParams, rawBody } from './input.js';
import { boolish } from '../domain/clients/input.js';
import { fallbacksBody } from '../domain/inbounds/input.js';
import { InboundsService } from '../domain/inbounds/service.js';

const idParam = z.object({
  id: z.string().regex(/^\d{1,9}$/, 'must be a positive integer').transform(Number).refine((n) => n > 0, 'must be a positive integer'),
});

async function objectBody(c: Parameters<typeof rawBody>[0]): Promise<Record<string, unknown>> {
  const body = await rawBody(c);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InputError('body: must be an inbound object');
  return body as Record<string, unknown>;
}

export function inboundRoutes() {
  const app = new Hono<AppEnv>();
  const svc = (c: { var: AppEnv['Variables'] }) => c.var.services.inbounds;

  app.get('/list', async (c) => ok(c, await svc(c).list(false)));
  app.get('/list/slim', async (c) => ok(c, await svc(c).list(true)));
  app.get('/options', async (c) => ok(c, await svc(c).options()));
  app.get('/get/:id', async (c) => okJsonText(c, await svc(c).getJson(parseParams(c, idParam).id)));

  app.post('/add', async (c) => {
    const input = InboundsService.parse(await objectBody(c));
    return ok(c, await svc(c).add(input), 'inbound created');
  });

  app.post('/update/:id', async (c) => {
    const { id } = parseParams(c, idParam);
    const input = InboundsService.parse(await objectBody(c));
    return ok(c, await svc(c).update(id, input), 'inbound updated');
  });

  app.post('/del/:id', async (c) => {
    const { id } = parseParams(c, idParam);
    await svc(c).remove(id);
    return ok(c, { id }, 'inbound deleted');
  });

  app.post('/setEnable/:id', async (c) => {
    const { id } = parseParams(c, idParam);
    const { enable } = await parseBody(c, z.object({ enable: boolish }));
    await svc(c).setEnable(id, enable);
    return ok(c, { id, enable }, enable ? 'inbound enabled' : 'inbound disabled');
  });

  app.post('/:id/resetTraffic', async (c) => {
    const { id } = parseParams(c, idParam);
    await svc(c).resetTraffic(id);
    return ok(c, null, 'inbound traffic reset');
  });

  app.post('/resetAllTraffics', async (c) => {
    await svc(c).resetAllTraffics();
    return ok(c, null, 'all inbound traffic reset');
  });

  app.post('/import', async (c) => {
    const { data } = await parseBody(c, z.object({ data: z.string({ error: 'must be a JSON-encoded inbound (string)' }) }));
    return ok(c, await svc(c).import(data), 'inbound imported');
  });

  app.get('/:id/fallbacks', async (c) => ok(c, await svc(c).fallbacks(parseParams(c, idParam).id)));
  app.post('/:id/fallbacks', async (c) => {
    const { id } = parseParams(c, idParam);
    const body = await parseBody(c, fallbacksBody);
    return ok(c, await svc(c).setFallbacks(id, body), 'fallbacks saved; the core restarts to apply them');
  });

  return app;
}
